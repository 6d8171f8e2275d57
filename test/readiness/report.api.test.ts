import request from 'supertest';

import { FOLD_EVERY } from '../../src/readiness/service.js';
import { JOURNAL_LIMIT } from '../../src/store/store.js';
import { buildTestApp, TEST_START, type TestApp } from '../helpers/build-test-app.js';
import { givenDashboardToken } from '../helpers/dashboard-token.js';
import { bearer, DEMO_ACCOUNT_ID, DEMO_API_KEY, DEMO_LOCATION_ID, OTHER_API_KEY } from '../helpers/demo.js';
import { loginAndGetToken } from '../helpers/oauth.js';
import { givenConfirmedSubscription } from '../helpers/subscriptions.js';
import { useTestApp } from '../helpers/use-test-app.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { endAlert, startAlert } from '../webhooks/support.js';
import { checkOf, drill, get, readinessOf, wait } from './support.js';

async function alertStartAndEnd(app: TestApp): Promise<void> {
  const started = await startAlert(app, { type: 'lowLeak' }).expect(201);
  await endAlert(app, started.body.alertId as string).expect(200);
  await app.deps.dispatcher.drain();
}

/** The report as a whole: its shape, its window, whose traffic counts, and evidence that outlives the bounded journal. */

const t = useTestApp();

// The ids of docs/readiness.md#the-checks, written out rather than imported: the test pins the contract, not src's list.
const CHECK_IDS = [
  'oauth.token-exchange',
  'oauth.refresh',
  'readings.pagination',
  'readings.grouping',
  'polling.interval',
  'errors.rate-limit',
  'errors.server-errors',
  'subscriptions.confirmed',
  'webhooks.confirmation-answer',
  'webhooks.check-answer',
  'webhooks.alert-answer',
  'webhooks.duplicate',
  'webhooks.out-of-order',
  'webhooks.https',
];
const OPTIONAL = ['readings.grouping', 'polling.interval', 'webhooks.https'];
const EIGHT_DAYS = `/v1/locations/${DEMO_LOCATION_ID}/readings/water-usage?startTime=2026-03-02T00:00:00Z&endTime=2026-03-10T00:00:00Z&perPage=50`;

describe('GET /sandbox/readiness', () => {
  it("answers exactly the contract's keys, every check in order, and counts that add up", async () => {
    const report = await readinessOf(t);
    expect(Object.keys(report).sort()).toEqual(['accountId', 'checks', 'ready', 'since', 'summary']);
    expect(report.checks.map((c) => c.id)).toEqual(CHECK_IDS);
    expect(report.checks.filter((c) => !c.required).map((c) => c.id)).toEqual(OPTIONAL);
    for (const check of report.checks) {
      expect(Object.keys(check).sort()).toEqual(['docs', 'evidence', 'fix', 'id', 'required', 'status', 'title']);
      expect(check.docs).toMatch(/^docs\/readiness\.md#[a-z.-]+$/);
    }
    const { passed, failed, pending, notApplicable } = report.summary;
    expect(passed + failed + pending + notApplicable).toBe(CHECK_IDS.length);
    expect(report).toMatchObject({ ready: false, summary: { passed: 0, failed: 0, notApplicable: 2, pending: 12 } });
  });

  it('opens the window when the account is made, and each account sees only its own traffic', async () => {
    wait(t, 5000);
    const created = (await request(t.app).post('/sandbox/accounts').send({ seed: 3 }).expect(201)).body as {
      apiKey: string;
      accountId: string;
    };
    const report = await readinessOf(t, created.apiKey);
    expect(report).toMatchObject({
      accountId: created.accountId,
      since: new Date(TEST_START.getTime() + 5000).toISOString(),
    });
    await drill(t, 'rate-limit', OTHER_API_KEY).expect(200);
    await get(t, '/v1/locations', OTHER_API_KEY).expect(429);
    await get(t, '/v1/locations', OTHER_API_KEY).expect(429);
    expect((await checkOf(t, 'errors.rate-limit', OTHER_API_KEY)).status).toBe('failed');
    expect((await checkOf(t, 'errors.rate-limit')).status).toBe('pending');
    expect((await checkOf(t, 'errors.rate-limit', created.apiKey)).status).toBe('pending');
  });

  it('is refused without credentials (401) and with a wrong key (403), like /v1', async () => {
    await request(t.app).get('/sandbox/readiness').expect(401);
    await request(t.app).get('/sandbox/readiness').set(bearer('nope-not-a-key-of-this-sandbox')).expect(403);
  });

  it('is ready once every required check passed or is not applicable, while optional ones may stay pending or fail', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      // An integration on its API key alone: the OAuth checks do not apply.
      await givenConfirmedSubscription(t, receiver);
      await alertStartAndEnd(t);
      await drill(t, 'duplicate-delivery').expect(200);
      await drill(t, 'out-of-order').expect(200);
      await t.deps.dispatcher.drain();
      const first = await get(t, EIGHT_DAYS).expect(200);
      for (let page = 2; page <= (first.body.pageCount as number); page++)
        await get(t, `${EIGHT_DAYS}&page=${page}`).expect(200);
      await drill(t, 'rate-limit').expect(200);
      for (let i = 0; i < 3; i++) {
        await get(t, '/v1/locations').expect(429);
        wait(t, 2000);
      }
      await get(t, '/v1/locations').expect(200);
      expect((await readinessOf(t)).ready).toBe(false);
      await drill(t, 'server-errors').expect(200);
      for (const waitMs of [1000, 2000, 4000]) {
        await get(t, '/v1/locations').expect(503);
        wait(t, waitMs);
      }
      await get(t, '/v1/locations').expect(200);

      const report = await readinessOf(t);
      const byStatus = (status: string): string[] => report.checks.filter((c) => c.status === status).map((c) => c.id);
      expect(byStatus('not_applicable')).toEqual(['oauth.token-exchange', 'oauth.refresh']);
      expect(byStatus('failed')).toEqual(['webhooks.https']);
      expect(byStatus('pending')).toEqual(['polling.interval']);
      expect(report).toMatchObject({ ready: true, summary: { passed: 10, failed: 1, pending: 1, notApplicable: 2 } });
    } finally {
      await t.deps.dispatcher.idle();
      await receiver.close();
    }
  });
});

describe('the readiness window', () => {
  it('POST /sandbox/readiness/reset opens a new window: earlier evidence no longer counts', async () => {
    await drill(t, 'rate-limit').expect(200);
    await get(t, '/v1/locations').expect(429);
    await get(t, '/v1/locations').expect(429);
    expect((await checkOf(t, 'errors.rate-limit')).status).toBe('failed');
    wait(t, 1000);
    const res = await request(t.app).post('/sandbox/readiness/reset').set(bearer(DEMO_API_KEY)).expect(200);
    expect(res.body).toMatchObject({ since: new Date(TEST_START.getTime() + 1000).toISOString(), ready: false });
    expect(res.body.checks.find((c: { id: string }) => c.id === 'errors.rate-limit')).toMatchObject({
      status: 'pending',
      evidence: [],
    });
    // `since` is on the account clock, as the evidence's times are.
    await request(t.app).post('/sandbox/clock').set(bearer(DEMO_API_KEY)).send({ advanceSeconds: 3600 }).expect(200);
    const later = await request(t.app).post('/sandbox/readiness/reset').set(bearer(DEMO_API_KEY)).expect(200);
    expect(later.body.since).toBe(new Date(TEST_START.getTime() + 1000 + 3_600_000).toISOString());
    // Its own body rules: no body, or an empty object.
    await request(t.app).post('/sandbox/readiness/reset').set(bearer(DEMO_API_KEY)).send({ now: true }).expect(400);
  });

  it("POST /sandbox/reset opens a new window with the account's reset", async () => {
    await get(t, EIGHT_DAYS).expect(200);
    wait(t, 61_000);
    expect((await checkOf(t, 'readings.pagination')).status).toBe('failed');
    await request(t.app).post('/sandbox/reset').set(bearer(DEMO_API_KEY)).expect(200);
    const report = await readinessOf(t);
    expect(report.since).toBe(new Date(TEST_START.getTime() + 61_000).toISOString());
    expect(report.checks.find((c) => c.id === 'readings.pagination')!.status).toBe('pending');
  });

  it(`keeps evidence that has left the journal (it holds ${JOURNAL_LIMIT} requests): a failure and a pass survive ${JOURNAL_LIMIT * 2} later requests`, async () => {
    const tokens = await loginAndGetToken(t.app);
    await get(t, '/v1/locations', tokens.access_token).expect(200);
    await get(t, EIGHT_DAYS).expect(200);
    wait(t, 61_000);
    for (let i = 0; i < JOURNAL_LIMIT * 2; i++) await get(t, `/v1/locations/${DEMO_LOCATION_ID}`).expect(200);
    const journal = (await get(t, `/sandbox/requests?path=/oauth2`).expect(200)).body.requests as unknown[];
    expect(journal).toEqual([]);
    expect((await checkOf(t, 'oauth.token-exchange')).status).toBe('passed');
    const pagination = await checkOf(t, 'readings.pagination');
    expect(pagination.status).toBe('failed');
    expect(pagination.evidence[0]!.detail).toBe('pageCount 4; pages 2, 3, 4 not requested within 60 s');
  });
});

describe('deliveries that leave the bounded log', () => {
  it('still count: a first attempt answered 500 fails alert-answer after the log has dropped it', async () => {
    // A log of FOLD_EVERY + 10: the activity that pushes the failed delivery out also folds it into the digest first.
    const small = await buildTestApp({ env: { WEBHOOK_LOG_LIMIT: String(FOLD_EVERY + 10) } });
    const receiver = await WebhookReceiver.start();
    try {
      await givenConfirmedSubscription(small, receiver);
      receiver.script = [{ status: 500, body: '{"error":"busy"}' }];
      const started = await startAlert(small, { type: 'lowLeak' }).expect(201);
      await small.deps.dispatcher.drain();
      small.clock.advance(1000);
      await small.deps.dispatcher.drain();
      const failedId = (await small.store.deliveries.list(DEMO_ACCOUNT_ID, { kind: 'alert', offset: 0, limit: 1 }))
        .items[0]!.deliveryId;
      // A few seconds on it has settled: the requests and attempts that follow fold it into the digest.
      small.clock.advance(10_000);
      await endAlert(small, started.body.alertId as string).expect(200);
      for (let i = 0; i < FOLD_EVERY; i++) {
        const again = await startAlert(small, { type: 'highLeak' }).expect(201);
        await endAlert(small, again.body.alertId as string).expect(200);
        await small.deps.dispatcher.drain();
      }
      expect(await small.store.deliveries.get(DEMO_ACCOUNT_ID, failedId)).toBeNull();
      const check = (
        await request(small.app).get('/sandbox/readiness').set(bearer(DEMO_API_KEY)).expect(200)
      ).body.checks.find((c: { id: string }) => c.id === 'webhooks.alert-answer');
      expect(check).toMatchObject({
        status: 'failed',
        evidence: [expect.objectContaining({ deliveryId: failedId, status: 500 })],
      });
    } finally {
      await small.deps.dispatcher.idle();
      await receiver.close();
    }
  });
});

describe('whose traffic counts', () => {
  it("the dashboard's own requests do not count, and neither do /sandbox calls", async () => {
    const dashboardToken = await givenDashboardToken(t);
    await get(t, EIGHT_DAYS, dashboardToken).expect(200);
    await get(t, '/sandbox/faults').expect(200);
    wait(t, 61_000);
    const report = await readinessOf(t);
    expect(report.checks.find((c) => c.id === 'readings.pagination')!.status).toBe('pending');
    expect(report.checks.find((c) => c.id === 'oauth.token-exchange')!.status).toBe('not_applicable');
  });
});

describe('the journal as the report reads it', () => {
  it("records token requests of the account's grants and requests with its expired tokens, with their errors", async () => {
    const tokens = await loginAndGetToken(t.app);
    await drill(t, 'expire-tokens').expect(200);
    await get(t, '/v1/locations', tokens.access_token).expect(403);
    const requests = (await get(t, '/sandbox/requests?limit=3').expect(200)).body.requests as Record<string, unknown>[];
    expect(requests.map((r) => [r['method'], r['path'], r['status'], r['auth']])).toEqual([
      ['GET', '/v1/locations', 403, 'access_token'],
      ['POST', '/sandbox/readiness/drills', 200, 'api_key'],
      ['POST', '/oauth2/token', 200, 'client'],
    ]);
    expect(requests[0]!['errorBody']).toMatch(/token_expired/);
    for (const r of requests)
      expect(Object.keys(r).sort()).toEqual([
        'auth',
        'durationMs',
        'errorBody',
        'method',
        'path',
        'query',
        'status',
        'time',
      ]);
  });
});
