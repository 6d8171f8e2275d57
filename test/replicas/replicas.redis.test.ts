import type { RunningSandbox } from '../../src/server.js';
import type { RedisStore } from '../../src/store/redis/redis-store.js';
import { useAppsAndReceivers } from '../helpers/app-and-receiver.js';
import { bearer, DEMO_ACCOUNT_ID, DEMO_API_KEY, DEMO_CLIENT, DEMO_LOCATION_ID, DEMO_USER } from '../helpers/demo.js';
import { basicAuth, formFields, loginPath, NATIVE_REDIRECT_URI } from '../helpers/oauth.js';
import { itWithOwnRedis, useTestRedis } from '../helpers/redis-server.js';
import { openSharedStore, replicaEnv, startReplica } from '../helpers/replicas.js';
import { eventually } from '../helpers/waiting.js';

/**
 * Two (or more) replicas of the whole server (startSandbox, as main.ts runs it) on one real
 * Redis, each with its own connections: what one does, the other sees and does not repeat.
 */

const redis = useTestRedis({ appendfsync: 'always' });
const running: RunningSandbox[] = [];
const stores: RedisStore[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

async function replicas(
  n: number,
  extra: Record<string, string> = {},
): Promise<{ all: RunningSandbox[]; shared: RedisStore }> {
  const prefix = redis.prefix();
  const env = replicaEnv(redis, prefix, extra);
  const all = await Promise.all(Array.from({ length: n }, () => startReplica(env)));
  running.push(...all);
  const shared = await openSharedStore(redis, prefix);
  stores.push(shared);
  return { all, shared };
}

const { startReceiver: receiver } = useAppsAndReceivers();

const json = { 'content-type': 'application/json', ...bearer(DEMO_API_KEY) };

async function call(
  base: RunningSandbox,
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base.url}${path}`, {
    ...init,
    headers: { ...json, ...(init.headers as Record<string, string> | undefined) },
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

/** Every subscription id of the demo location, page by page, as one replica lists them. */
async function subscriptionIdsVia(replica: RunningSandbox): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let page = 1; ; page++) {
    const listed = await call(replica, `/v1/locations/${DEMO_LOCATION_ID}/subscriptions?perPage=100&page=${page}`);
    const subscriptions = listed.body['subscriptions'] as { subscriptionId: string }[];
    for (const s of subscriptions) ids.add(s.subscriptionId);
    if (subscriptions.length < 100) return ids;
  }
}

/** Adds `n` confirmed subscriptions of the demo location straight into the store; returns their ids. */
async function givenConfirmedSubscriptions(
  shared: RedisStore,
  endpoint: (i: number) => string,
  n: number,
): Promise<string[]> {
  const ids = Array.from({ length: n }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
  await shared.accounts.update(DEMO_ACCOUNT_ID, (doc) => {
    for (const [i, subscriptionId] of ids.entries()) {
      doc.subscriptions.push({
        subscriptionId,
        accountId: DEMO_ACCOUNT_ID,
        locationId: DEMO_LOCATION_ID,
        endpoint: endpoint(i),
        status: 'confirmed',
        createdAt: new Date(0).toISOString(),
      });
    }
  });
  return ids;
}

describe('replicas on one Redis', () => {
  it('load the fixtures once, however many start together', async () => {
    const { all, shared } = await replicas(3);
    expect(all.map((s) => s.report.store.origin).sort()).toEqual(['existing', 'existing', 'fresh']);
    expect(await shared.accounts.count()).toBe(2);
    for (const s of all) expect((await call(s, '/healthz')).body).toMatchObject({ status: 'ok', store: 'redis' });
  });

  it('a write on one replica is read on the other at once', async () => {
    const { all } = await replicas(2);
    const [a, b] = all as [RunningSandbox, RunningSandbox];
    expect(
      (await call(a, `/v1/locations/${DEMO_LOCATION_ID}`, { method: 'PUT', body: '{"homeAway":"away"}' })).status,
    ).toBe(200);
    expect((await call(b, `/v1/locations/${DEMO_LOCATION_ID}`)).body['homeAway']).toBe('away');
    expect(
      (await call(b, `/v1/locations/${DEMO_LOCATION_ID}`, { method: 'PUT', body: '{"homeAway":"home"}' })).status,
    ).toBe(200);
    expect((await call(a, `/v1/locations/${DEMO_LOCATION_ID}`)).body['homeAway']).toBe('home');
  });

  it('200 concurrent subscription creates spread over two replicas are all stored', async () => {
    const { all } = await replicas(2);
    const r = await receiver();
    const created = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        call(all[i % 2]!, `/v1/locations/${DEMO_LOCATION_ID}/subscriptions`, {
          method: 'POST',
          body: JSON.stringify({ endpoint: r.url(`/hooks/${i}`) }),
        }),
      ),
    );
    expect(created.map((c) => c.status)).toEqual(Array.from({ length: 200 }, () => 200));
    const ids = new Set(created.map((c) => c.body['subscriptionId']));
    expect(ids.size).toBe(200);
    expect(await subscriptionIdsVia(all[1]!)).toEqual(ids);
    // Every confirmation went out once.
    await r.waitFor(200);
    const posted = r.received.filter((x) => x.method === 'POST').map((x) => x.headers['x-sandbox-delivery-id']);
    expect(new Set(posted).size).toBe(posted.length);
  });

  it('one alert to a location with many confirmed subscriptions gives exactly one accepted POST per subscription, retries keeping the delivery id', async () => {
    const { all, shared } = await replicas(2);
    const r = await receiver();
    const n = 150;
    const subscriptionIds = await givenConfirmedSubscriptions(shared, (i) => r.url(`/hooks/${i}`), n);
    // The first 20 POSTs that arrive are refused: those deliveries are retried.
    r.script = Array.from({ length: 20 }, () => ({ status: 503 }));
    expect(
      (
        await call(all[0]!, `/sandbox/locations/${DEMO_LOCATION_ID}/alerts`, {
          method: 'POST',
          body: '{"type":"highLeak"}',
        })
      ).status,
    ).toBe(201);
    await r.waitFor(n + 20);
    await eventually(
      async () =>
        (await shared.deliveries.list(DEMO_ACCOUNT_ID, { kind: 'alert', state: 'delivered', offset: 0, limit: 1 }))
          .total === n || null,
      20_000,
    );

    const attemptsById = new Map<string, string[]>();
    for (const x of r.received) {
      const id = x.headers['x-sandbox-delivery-id'] as string;
      attemptsById.set(id, [...(attemptsById.get(id) ?? []), x.headers['x-sandbox-attempt'] as string]);
    }
    expect(attemptsById.size).toBe(n);
    // Each delivery: attempt 1, and attempt 2 only for the 20 refused ones; no attempt twice.
    const shapes = [...attemptsById.values()].map((a) => a.join(','));
    expect(shapes.filter((s) => s === '1')).toHaveLength(n - 20);
    expect(shapes.filter((s) => s === '1,2')).toHaveLength(20);
    expect(new Set(r.bodies<{ subscriptionId: string }>().map((b) => b.subscriptionId))).toEqual(
      new Set(subscriptionIds),
    );
    expect(r.received).toHaveLength(n + 20);
  });

  it('a login started on one replica completes on the other', async () => {
    const { all } = await replicas(2);
    const [a, b] = all as [RunningSandbox, RunningSandbox];
    const page = await fetch(`${a.url}${loginPath()}`);
    expect(page.status).toBe(200);
    const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
    const form = new URLSearchParams({
      ...formFields(await page.text()),
      email: DEMO_USER.email,
      password: DEMO_USER.password,
    });
    const signedIn = await fetch(`${b.url}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    expect(signedIn.status).toBe(302);
    const code = new URL(signedIn.headers.get('location')!).searchParams.get('code')!;
    const token = await fetch(`${a.url}/oauth2/token`, {
      method: 'POST',
      headers: {
        authorization: basicAuth(DEMO_CLIENT.clientId, DEMO_CLIENT.clientSecret),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: NATIVE_REDIRECT_URI }),
    });
    expect(token.status).toBe(200);
    const { access_token: accessToken } = (await token.json()) as { access_token: string };
    expect((await fetch(`${b.url}/v1/locations`, { headers: bearer(accessToken) })).status).toBe(200);
    // The browser's session is known to both: the next authorization skips the form on either.
    const again = await fetch(`${a.url}${loginPath()}`, {
      redirect: 'manual',
      headers: { cookie: signedIn.headers.get('set-cookie')?.split(';')[0] ?? cookie },
    });
    expect(again.status).toBe(302);
  });

  it("a partner's rate limit is one limit whichever replica answers", async () => {
    const { all } = await replicas(2);
    expect(
      (
        await call(all[0]!, '/sandbox/faults', {
          method: 'POST',
          body: '{"rateLimit":{"requests":6,"perSeconds":3600}}',
        })
      ).status,
    ).toBe(201);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await call(all[i % 2]!, '/v1/locations')).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(6);
    expect(statuses.slice(6)).toEqual(Array.from({ length: 6 }, () => 429));
  });

  it('a clock advance sent to both replicas at once applies twice, one after the other, and each scenario step runs once', async () => {
    const { all, shared } = await replicas(2);
    const r = await receiver();
    await givenConfirmedSubscriptions(shared, () => r.url('/hooks'), 1);
    const run = await call(all[0]!, '/sandbox/scenarios/away-leak/runs', {
      method: 'POST',
      body: JSON.stringify({ locationId: DEMO_LOCATION_ID }),
    });
    expect(run.status).toBe(201);
    const advanced = await Promise.all(
      all.map((s) => call(s, '/sandbox/clock', { method: 'POST', body: '{"advanceSeconds": 18000}' })),
    );
    expect(advanced.map((x) => x.status)).toEqual([200, 200]);
    expect((await call(all[1]!, '/sandbox/clock')).body['offsetSeconds']).toBe(36_000);
    const progress = await call(all[1]!, `/sandbox/runs/${run.body['runId'] as string}`);
    expect(progress.body).toMatchObject({ state: 'completed' });
    const steps = (progress.body['log'] as { step: number }[]).map((l) => l.step);
    expect(steps).toEqual([0, 1, 2, 3]);
    await r.waitFor(2);
    await eventually(
      async () =>
        (await shared.deliveries.list(DEMO_ACCOUNT_ID, { kind: 'alert', state: 'pending', offset: 0, limit: 1 }))
          .total === 0 || null,
    );
    expect(r.bodies<{ active: boolean }>().map((b) => b.active)).toEqual([true, false]);
  });

  it('events published by one replica reach subscribers on the other (the dashboard and relay bus)', async () => {
    const { all } = await replicas(2);
    const heard: unknown[] = [];
    await all[1]!.deps.store.events.subscribe(`account:${DEMO_ACCOUNT_ID}`, (m) => heard.push(m));
    expect((await call(all[0]!, '/sandbox/reset', { method: 'POST' })).status).toBe(200);
    await eventually(() => heard.length > 0 || null);
    expect(heard).toContainEqual({ type: 'reset' });
  });
});

describe('replicas when Redis restarts', () => {
  itWithOwnRedis(
    'health goes 503 with the reason while Redis is away and 200 when it is back; requests get 503, never 500; acknowledged writes survive (appendfsync always)',
    async () => {
      const { all } = await replicas(2);
      const [a, b] = all as [RunningSandbox, RunningSandbox];
      const r = await receiver();
      const acknowledged: string[] = [];
      for (let i = 0; i < 30; i++) {
        const created = await call(all[i % 2]!, `/v1/locations/${DEMO_LOCATION_ID}/subscriptions`, {
          method: 'POST',
          body: JSON.stringify({ endpoint: r.url(`/restart/${i}`) }),
        });
        expect(created.status).toBe(200);
        acknowledged.push(created.body['subscriptionId'] as string);
      }

      await redis.kill();
      const down = await eventually(async () => {
        const health = await call(a, '/healthz');
        return health.status === 503 ? health.body : null;
      });
      // Which words depend on the race between the health PING and the client noticing the closed socket.
      expect(down).toMatchObject({
        status: 'unavailable',
        store: 'redis',
        reason: expect.stringMatching(/^Redis at redis:\/\/127\.0\.0\.1:\d+ (is unreachable|does not answer): \S/),
      });
      const during = await call(b, '/v1/locations');
      expect(during.status).toBe(503);
      expect(during.body).toMatchObject({ error: 'service_unavailable' });

      await redis.start();
      for (const s of all) await eventually(async () => (await call(s, '/healthz')).status === 200 || null, 15_000);
      const stored = await subscriptionIdsVia(b);
      for (const id of acknowledged) expect(stored.has(id)).toBe(true);
      expect(
        (await call(a, `/v1/locations/${DEMO_LOCATION_ID}`, { method: 'PUT', body: '{"homeAway":"away"}' })).status,
      ).toBe(200);
    },
  );
});
