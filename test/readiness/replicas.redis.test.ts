import { FOLD_EVERY } from '../../src/readiness/service.js';
import type { RunningSandbox } from '../../src/server.js';
import { DEMO_CLIENT } from '../helpers/demo.js';
import { basicAuth, formFields, NATIVE_REDIRECT_URI } from '../helpers/oauth.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { replicaEnv, startReplica } from '../helpers/replicas.js';
import { startTestSandbox, stopAllSandboxes } from '../helpers/start-sandbox.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * The readiness report lives in the store: on Redis it is the same whichever replica answers
 * and whichever replicas saw the traffic (each folds the journal after its own appends), and it
 * is the report the embedded store gives for the same traffic.
 */

let redis: TestRedis;
const running: RunningSandbox[] = [];
let receiver: WebhookReceiver;

beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await stopAllSandboxes();
  await redis.dispose();
});
beforeEach(async () => {
  receiver = await WebhookReceiver.start();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
  await receiver.close();
});

interface Report {
  checks: {
    id: string;
    status: string;
    required: boolean;
    fix: string | null;
    evidence: {
      request?: string;
      deliveryId?: string;
      subscriptionId?: string;
      status?: number | null;
      detail: string;
    }[];
  }[];
  ready: boolean;
  summary: Record<string, number>;
}

/**
 * The same integration traffic, each request to the next sandbox of `urls` in turn: a sign-in
 * and code exchange, a followed walk through pages, hourly readings over too long a range, a
 * confirmed subscription and an alert, early retries after a 429, and enough further requests
 * that every replica folds the journal more than once.
 */
async function integrationTraffic(urls: string[]): Promise<{ apiKey: string }> {
  let turn = 0;
  const next = (): string => urls[turn++ % urls.length]!;
  const created = (await (await fetch(`${next()}/sandbox/accounts`, { method: 'POST' })).json()) as {
    apiKey: string;
    user: { email: string; password: string };
    locations: { locationId: string }[];
  };
  const { apiKey } = created;
  const locationId = created.locations[0]!.locationId;
  const call = async (path: string, init: RequestInit = {}, credential = apiKey): Promise<Response> =>
    fetch(`${next()}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${credential}`,
        'content-type': 'application/json',
        ...(init.headers as Record<string, string> | undefined),
      },
    });

  // OAuth: the form on one replica, its POST and the token request on others.
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: DEMO_CLIENT.clientId,
    redirect_uri: NATIVE_REDIRECT_URI,
  });
  const page = await fetch(`${next()}/login?${query.toString()}`);
  const cookie = page.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const form = new URLSearchParams({
    ...formFields(await page.text()),
    email: created.user.email,
    password: created.user.password,
  });
  const signedIn = await fetch(`${next()}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  const code = new URL(signedIn.headers.get('location')!).searchParams.get('code')!;
  const token = await fetch(`${next()}/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: basicAuth(DEMO_CLIENT.clientId, DEMO_CLIENT.clientSecret),
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: NATIVE_REDIRECT_URI }),
  });
  const { access_token: accessToken } = (await token.json()) as { access_token: string };
  expect((await call('/v1/locations', {}, accessToken)).status).toBe(200);

  // Every page of two walks: eight days by hour (passes), and 35 days by hour (too long a range for hours).
  for (const days of [8, 35]) {
    const walk = `/v1/locations/${locationId}/readings/water-usage?startTime=${encodeURIComponent(new Date(Date.now() - days * 86_400_000).toISOString())}&perPage=100`;
    const first = (await (await call(walk)).json()) as { pageCount: number };
    for (let p = 2; p <= first.pageCount; p++) expect((await call(`${walk}&page=${p}`)).status).toBe(200);
  }

  const subscribed = (await (
    await call(`/v1/locations/${locationId}/subscriptions`, {
      method: 'POST',
      body: JSON.stringify({ endpoint: receiver.url() }),
    })
  ).json()) as { subscriptionId: string };
  const [confirmation] = await receiver.waitForMatching(
    (r) =>
      r.method === 'POST' &&
      (r.body as { subscriptionId?: string; confirmationUrl?: string }).confirmationUrl?.includes(
        subscribed.subscriptionId,
      ) === true,
  );
  const url = new URL((confirmation!.body as { confirmationUrl: string }).confirmationUrl);
  expect((await call(`${url.pathname}${url.search}`)).status).toBe(200);
  const alert = (await (
    await call(`/sandbox/locations/${locationId}/alerts`, { method: 'POST', body: JSON.stringify({ type: 'lowLeak' }) })
  ).json()) as { alertId: string };
  await call(`/sandbox/locations/${locationId}/alerts/${alert.alertId}/end`, { method: 'POST' });
  await receiver.waitForMatching((r) => r.method === 'GET');
  await receiver.waitForMatching(
    (r) =>
      r.method === 'POST' &&
      (r.body as { subscriptionId?: string; active?: boolean }).subscriptionId === subscribed.subscriptionId &&
      (r.body as { active?: boolean }).active === false,
  );

  expect(
    (await call('/sandbox/readiness/drills', { method: 'POST', body: JSON.stringify({ drill: 'rate-limit' }) })).status,
  ).toBe(200);
  // All three of the drill's 429s, two of them early: none is left for the requests below, whose
  // pace (and so their count of early retries) would follow the machine's load.
  for (let i = 0; i < 3; i++) expect((await call('/v1/locations')).status).toBe(429);
  // The client then waits out Retry-After: moving the account clock counts as the wait.
  expect((await call('/sandbox/clock', { method: 'POST', body: JSON.stringify({ advanceSeconds: 3 }) })).status).toBe(
    200,
  );
  for (let i = 0; i < FOLD_EVERY * 6; i++) await call(`/v1/locations/${locationId}`);
  return { apiKey };
}

async function reportVia(url: string, apiKey: string): Promise<Report> {
  const res = await fetch(`${url}/sandbox/readiness`, { headers: { authorization: `Bearer ${apiKey}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as Report;
}

/** What two runs of the same traffic share: every status, fix and piece of evidence but the ids, times and measured seconds. */
function comparable(report: Report): unknown {
  const general = (text: string): string =>
    text
      .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<id>')
      .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z|\d{4}-\d\d-\d\dT\d\d%3A\d\d%3A[\d.]+Z/g, '<time>')
      .replace(/…\S+/g, '…<token>')
      .replace(/\d+(\.\d+)? s\b/g, '<n> s')
      .replace(/127\.0\.0\.1:\d+\/\S+/g, '<receiver>')
      .replace(/[A-Za-z0-9_-]{20,}/g, '<secret>');
  return {
    ready: report.ready,
    summary: report.summary,
    checks: report.checks.map((c) => ({
      ...c,
      evidence: c.evidence.map((e) => ({
        kind: e.request !== undefined ? 'request' : e.deliveryId !== undefined ? 'delivery' : 'subscription',
        status: e.status,
        detail: general(e.detail),
        request: e.request === undefined ? undefined : general(e.request),
      })),
    })),
  };
}

it("is the same report whichever replica answers, after traffic spread over both, and equals the embedded store's for the same traffic", async () => {
  const env = replicaEnv(redis, redis.prefix());
  const replicas = await Promise.all([startReplica(env), startReplica(env)]);
  running.push(...replicas);
  const { apiKey } = await integrationTraffic(replicas.map((r) => r.url));
  const [viaFirst, viaSecond] = await Promise.all(replicas.map((r) => reportVia(r.url, apiKey)));
  expect(viaFirst).toEqual(viaSecond);
  const statuses = Object.fromEntries(viaFirst!.checks.map((c) => [c.id, c.status]));
  expect(statuses).toMatchObject({
    'oauth.token-exchange': 'passed',
    'readings.pagination': 'passed',
    'readings.grouping': 'failed',
    'errors.rate-limit': 'failed',
    'subscriptions.confirmed': 'passed',
    'webhooks.confirmation-answer': 'passed',
    'webhooks.check-answer': 'passed',
    'webhooks.alert-answer': 'passed',
  });

  const embedded = await startTestSandbox();
  const { apiKey: embeddedKey } = await integrationTraffic([embedded.url]);
  expect(comparable(await reportVia(embedded.url, embeddedKey))).toEqual(comparable(viaFirst!));
}, 120_000);
