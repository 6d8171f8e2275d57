import { get, type IncomingMessage } from 'node:http';

import { DASHBOARD_PATHS } from '../../src/dashboard/page-config.js';
import type { RunningSandbox } from '../../src/server.js';
import { CliProcess } from '../helpers/cli-process.js';
import { signInToDashboard } from '../helpers/dashboard-sign-in.js';
import { bearer, DEMO_API_KEY } from '../helpers/demo.js';
import { useTestRedis } from '../helpers/redis-server.js';
import { replicaEnv, startReplica } from '../helpers/replicas.js';
import { eventually } from '../helpers/waiting.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * What a browser or `water-sandbox listen` holds open (an event stream) is on one replica; what
 * it reports happens on another. Replica A serves the partner's calls and makes every webhook
 * attempt; replica B holds the stream and makes none (its dispatcher is stopped), so everything
 * seen on B crossed Redis.
 */

const redis = useTestRedis();
let a: RunningSandbox;
let b: RunningSandbox;
let receiver: WebhookReceiver;
const clis: CliProcess[] = [];

beforeEach(async () => {
  // One public address for both, as behind a load balancer: relay endpoint URLs name it.
  // PUBLIC_URL not loopback makes the replicas hosted: /metrics, which the test reads, opened.
  const env = replicaEnv(redis, redis.prefix(), {
    PUBLIC_URL: 'http://sandbox.test',
    WEBHOOK_MAX_ATTEMPTS: '3',
    METRICS_OPEN: 'true',
  });
  [a, b] = await Promise.all([startReplica(env), startReplica(env)]);
  b.deps.dispatcher.stop();
  receiver = await WebhookReceiver.start();
  receiver.fallback = { status: 202, body: '{"received":"yes"}' };
});

afterEach(async () => {
  for (const cli of clis.splice(0)) cli.kill('SIGKILL');
  await Promise.all([a.stop(), b.stop(), receiver.close()]);
});

/** A JSON answer; a caller names the type of body it expects. */
interface Answer<T = unknown> {
  status: number;
  body: T;
}

async function api(
  replica: RunningSandbox,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer> {
  const response = await fetch(`${replica.url}${path}`, {
    method,
    headers: { ...bearer(key), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json() };
}

describe('water-sandbox listen connected to one replica', () => {
  it('forwards the confirmation and the alerts that the other replica sends, and the answers get back to it', async () => {
    const created = await fetch(`${a.url}/sandbox/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"locations": 1}',
    });
    const { apiKey: key, locations } = (await created.json()) as {
      apiKey: string;
      locations: { locationId: string }[];
    };
    const locationId = locations[0]!.locationId;

    const cli = new CliProcess([
      'listen',
      '--forward-to',
      receiver.url('/hooks'),
      '--sandbox',
      b.url,
      '--api-key',
      key,
      '--subscribe',
      'all',
    ]);
    clis.push(cli);
    const [, endpoint] = await cli.waitFor(/Ready\. Webhooks sent to (\S+) are forwarded to /, { stream: 'stdout' });
    expect(endpoint).toMatch(/^http:\/\/sandbox\.test\/relay\/default\./);
    await cli.waitFor(/confirmed subscription [0-9a-f-]{36}/, { stream: 'stdout' });

    await api(a, key, 'POST', `/sandbox/locations/${locationId}/alerts`, { type: 'highLeak' });
    const notification = await eventually(
      () => receiver.received.find((r) => (r.body as { type?: string } | undefined)?.type === 'highLeak') ?? null,
      10_000,
    );
    expect(notification.body).toMatchObject({ locationId, type: 'highLeak', active: true });

    // The receiver's answer went from the CLI to B, and from B to A, which recorded it.
    const deliveryId = notification.headers['x-sandbox-delivery-id'] as string;
    const delivered = await eventually(async () => {
      const { body } = (await api(a, key, 'GET', '/sandbox/deliveries?kind=alert')) as Answer<{
        deliveries: {
          deliveryId: string;
          state: string;
          attempts: { statusCode: number | null; responseExcerpt: string | null }[];
        }[];
      }>;
      return body.deliveries.find((d) => d.deliveryId === deliveryId && d.state === 'delivered') ?? null;
    });
    expect(delivered.attempts).toEqual([
      expect.objectContaining({ statusCode: 202, responseExcerpt: '{"received":"yes"}' }),
    ]);
    const attemptsOf = async (replica: RunningSandbox): Promise<number> => {
      const metrics = await (await fetch(`${replica.url}/metrics`)).text();
      return [...metrics.matchAll(/^sandbox_webhook_attempts_total\{[^}]*\} (\d+)$/gm)].reduce(
        (sum, m) => sum + Number(m[1]),
        0,
      );
    };
    expect(await attemptsOf(b)).toBe(0);
    expect(await attemptsOf(a)).toBeGreaterThanOrEqual(2);
  });
});

/** The dashboard's event stream, as a browser's EventSource reads it. */
function openStream(
  base: string,
  cookie: string,
): Promise<{ response: IncomingMessage; messages: Record<string, unknown>[] }> {
  return new Promise((resolve, reject) => {
    get(`${base}${DASHBOARD_PATHS.events}`, { headers: { accept: 'text/event-stream', cookie } }, (response) => {
      const messages: Record<string, unknown>[] = [];
      let buffer = '';
      response.setEncoding('utf8').on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const data = buffer
            .slice(0, end)
            .split('\n')
            .find((line) => line.startsWith('data: '));
          buffer = buffer.slice(end + 2);
          if (data) messages.push(JSON.parse(data.slice(6)) as Record<string, unknown>);
        }
      });
      resolve({ response, messages });
    }).on('error', reject);
  });
}

describe('the dashboard signed in on one replica', () => {
  it('streams from the other replica what the partner does on the first', async () => {
    const { cookie } = await signInToDashboard(a.url);

    const stream = await openStream(b.url, cookie);
    try {
      expect(stream.response.statusCode).toBe(200);
      await eventually(() => stream.messages.find((m) => m['type'] === 'hello') ?? null);
      const { body: listed } = (await api(a, DEMO_API_KEY, 'GET', '/v1/locations')) as Answer<{
        locations: { locationId: string }[];
      }>;
      const locationId = listed.locations[0]!.locationId;
      expect((await api(a, DEMO_API_KEY, 'PUT', `/v1/locations/${locationId}`, { homeAway: 'away' })).status).toBe(200);
      expect(await eventually(() => stream.messages.find((m) => m['type'] === 'location') ?? null)).toEqual({
        type: 'location',
        locationId,
        homeAway: 'away',
      });
      expect(
        await eventually(() => stream.messages.find((m) => m['type'] === 'request' && m['method'] === 'PUT') ?? null),
      ).toMatchObject({ path: `/v1/locations/${locationId}`, status: 200 });
    } finally {
      stream.response.destroy();
    }
  });
});
