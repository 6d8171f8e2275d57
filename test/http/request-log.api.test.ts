import type { DestinationStream } from 'pino';
import request from 'supertest';

import { createLogger } from '../../src/core/logger.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_ACCOUNT_ID, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';

// One line per request at LOG_LEVEL=info: written without pino's redaction pass (its fields are
// strings and numbers, which no redaction path reaches), so it must be the very line the
// redacting logger writes for the same fields, a confirmation token in the URL still redacted.

const apps: TestApp[] = [];
afterEach(async () => {
  for (const t of apps.splice(0)) await t.deps.dispatcher.idle();
});

async function appLogging(lines: string[]): Promise<TestApp> {
  const destination: DestinationStream = { write: (line: string) => void lines.push(line) };
  const t = await buildTestApp({ logger: createLogger('info', destination) });
  apps.push(t);
  return t;
}

const requestLines = (lines: string[]): string[] =>
  lines.filter((line) => (JSON.parse(line) as { msg?: string }).msg === 'request');

/** The line the app's own (redacting) logger writes for the same fields at the same time. */
function asTheRedactingLoggerWrites(line: string): string {
  const { level: _level, time, msg: _msg, ...fields } = JSON.parse(line) as Record<string, unknown>;
  const written: string[] = [];
  createLogger('info', { write: (text: string) => void written.push(text) }).info('request', fields);
  return written[0]!.replace(/"time":"[^"]*"/, `"time":${JSON.stringify(time)}`);
}

describe('the request log line', () => {
  it('names method, URL, status, duration and account, byte for byte as the redacting logger writes them', async () => {
    const lines: string[] = [];
    const t = await appLogging(lines);
    await request(t.app)
      .get(`/v1/locations/${DEMO_LOCATION_ID}?note=%22quoted%22%5C`)
      .set(bearer(DEMO_API_KEY))
      .expect(200);
    await request(t.app).get('/v1/locations/nope').set(bearer(DEMO_API_KEY)).expect(404);
    await request(t.app).get('/v1/locations').expect(401);

    const logged = requestLines(lines);
    expect(logged).toHaveLength(3);
    for (const line of logged) expect(line).toBe(asTheRedactingLoggerWrites(line));
    const first = JSON.parse(logged[0]!) as Record<string, unknown>;
    expect(Object.keys(first)).toEqual(['level', 'time', 'method', 'url', 'status', 'durationMs', 'accountId', 'msg']);
    expect(first).toMatchObject({
      level: 'info',
      method: 'GET',
      url: `/v1/locations/${DEMO_LOCATION_ID}?note=%22quoted%22%5C`,
      status: 200,
      accountId: DEMO_ACCOUNT_ID,
    });
    expect(JSON.parse(logged[2]!)).not.toHaveProperty('accountId');
  });

  it('redacts a confirmation token in the URL', async () => {
    const lines: string[] = [];
    const t = await appLogging(lines);
    await request(t.app).get('/sandbox/subscriptions/confirm?confirmationToken=secret-token-value&x=1');

    const [line] = requestLines(lines);
    expect(line).toBe(asTheRedactingLoggerWrites(line!));
    expect(JSON.parse(line!)).toMatchObject({ url: '/sandbox/subscriptions/confirm?confirmationToken=[redacted]&x=1' });
    expect(line).not.toContain('secret-token-value');
  });
});
