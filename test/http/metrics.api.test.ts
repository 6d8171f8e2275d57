import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import request from 'supertest';

import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { givenSubscription, startAlert } from '../webhooks/support.js';

/** The value of one sample of the exposition, e.g. metric('sandbox_accounts') or with labels. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | null {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const wanted = Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`));
    if (wanted) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return null;
}

describe.each([
  ['memory', {}],
  ['lowdb', 'temp-dir'],
] as const)('GET /metrics on the %s store', (backend, where) => {
  let t: TestApp;
  let dir: string | null = null;

  beforeEach(async () => {
    dir = where === 'temp-dir' ? await mkdtemp(join(tmpdir(), 'metrics-')) : null;
    t = await buildTestApp({ env: dir === null ? {} : { DATA_DIR: dir } });
  });

  afterEach(async () => {
    await t.store.close();
    if (dir !== null) await rm(dir, { recursive: true, force: true });
  });

  it('counts requests by route pattern and status, with latency histograms', async () => {
    await request(t.app).get(`/v1/locations/${DEMO_LOCATION_ID}`).set(bearer(DEMO_API_KEY)).expect(200);
    await request(t.app).get('/v1/locations/not-a-location').set(bearer(DEMO_API_KEY)).expect(404);
    await request(t.app).get('/no/such/route').expect(404);
    const res = await request(t.app).get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.text;
    expect(
      sample(text, 'sandbox_http_requests_total', { method: 'GET', route: '/v1/locations/:locationId', status: '200' }),
    ).toBe(1);
    expect(
      sample(text, 'sandbox_http_requests_total', { method: 'GET', route: '/v1/locations/:locationId', status: '404' }),
    ).toBe(1);
    expect(sample(text, 'sandbox_http_requests_total', { route: 'unmatched', status: '404' })).toBe(1);
    expect(
      sample(text, 'sandbox_http_request_duration_seconds_count', {
        route: '/v1/locations/:locationId',
        status: '200',
      }),
    ).toBe(1);
    // Raw paths never become labels.
    expect(text).not.toContain(DEMO_LOCATION_ID);
  });

  it('labels a refused request with the pattern of the route it reached, under any mount, and pages by their route', async () => {
    await request(t.app).post('/sandbox/clock').set(bearer(DEMO_API_KEY)).send({ advanceSeconds: 'soon' }).expect(400);
    await request(t.app).post('/sandbox/clock').send({ advanceSeconds: 1 }).expect(401);
    await request(t.app).get('/').expect(200);
    const text = (await request(t.app).get('/metrics').expect(200)).text;
    expect(
      sample(text, 'sandbox_http_requests_total', { method: 'POST', route: '/sandbox/clock', status: '400' }),
    ).toBe(1);
    // Refused before any route of /sandbox was reached.
    expect(sample(text, 'sandbox_http_requests_total', { method: 'POST', route: 'unmatched', status: '401' })).toBe(1);
    expect(sample(text, 'sandbox_http_requests_total', { method: 'GET', route: '/', status: '200' })).toBe(1);
  });

  it('reports accounts stored, store latency by operation, and the due-delivery queue', async () => {
    await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(200);
    const text = (await request(t.app).get('/metrics').expect(200)).text;
    expect(sample(text, 'sandbox_accounts')).toBe(2);
    // The backend the app really has (npm run test:redis runs this file with every test app on Redis).
    expect(
      sample(text, 'sandbox_store_operation_duration_seconds_count', {
        backend: t.store.backend,
        operation: 'accounts.findByKey',
      }),
    ).toBeGreaterThan(0);
    if (!process.env['TEST_REDIS_URL']) expect(t.store.backend).toBe(backend);
    expect(sample(text, 'sandbox_webhook_queue_due_deliveries')).toBe(0);
    expect(sample(text, 'sandbox_webhook_queue_due_accounts')).toBe(0);
    expect(sample(text, 'sandbox_webhook_queue_oldest_age_seconds')).toBe(0);
  });

  it('counts webhook attempts and finished deliveries by state, and shows deliveries waiting in the queue', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      receiver.script = [{ status: 500 }];
      await givenSubscription(t, receiver.url());
      await startAlert(t, { type: 'highLeak' }).expect(201);
      await t.deps.dispatcher.drain();
      // The first attempt failed: a retry waits a second on the account clock.
      let text = (await request(t.app).get('/metrics').expect(200)).text;
      expect(sample(text, 'sandbox_webhook_attempts_total', { kind: 'alert', result: 'refused' })).toBe(1);
      expect(sample(text, 'sandbox_webhook_queue_due_deliveries')).toBe(0);
      t.clock.advance(5000);
      text = (await request(t.app).get('/metrics').expect(200)).text;
      expect(sample(text, 'sandbox_webhook_queue_due_deliveries')).toBe(1);
      expect(sample(text, 'sandbox_webhook_queue_oldest_age_seconds')).toBe(4);
      await t.deps.dispatcher.drain();
      text = (await request(t.app).get('/metrics').expect(200)).text;
      expect(sample(text, 'sandbox_webhook_attempts_total', { kind: 'alert', result: 'accepted' })).toBe(1);
      expect(sample(text, 'sandbox_webhook_deliveries_total', { kind: 'alert', state: 'delivered' })).toBe(1);
      expect(sample(text, 'sandbox_webhook_queue_due_deliveries')).toBe(0);
    } finally {
      await receiver.close();
    }
  });
});

describe('GET /metrics with ADMIN_TOKEN set', () => {
  it('needs the admin token, like /sandbox/admin/*', async () => {
    const t = await buildTestApp({ env: { ADMIN_TOKEN: 'admin-secret' } });
    await request(t.app).get('/metrics').expect(401);
    await request(t.app).get('/metrics').set(bearer('wrong')).expect(403);
    await request(t.app).get('/metrics').set(bearer(DEMO_API_KEY)).expect(403);
    const res = await request(t.app).get('/metrics').set(bearer('admin-secret')).expect(200);
    expect(res.text).toContain('sandbox_accounts 2');
  });
});
