import request from 'supertest';

import { JOURNAL_LIMIT } from '../../src/store/store.js';
import { buildTestApp, changeDoc } from '../helpers/build-test-app.js';
import { givenDashboardToken } from '../helpers/dashboard-token.js';
import {
  bearer,
  DEMO_ACCOUNT_ID,
  DEMO_API_KEY,
  DEMO_LOCATION_ID,
  DEMO_LOCATIONS,
  OTHER_ACCOUNT_ID,
  OTHER_API_KEY,
} from '../helpers/demo.js';
import { injectFault } from '../helpers/faults.js';
import { setHomeAway } from '../helpers/home-away.js';
import { useTestApp } from '../helpers/use-test-app.js';
import { givenFault } from '../store/builders.js';

const t = useTestApp();

const LOCATION_KEYS = ['alerts', 'devices', 'homeAway', 'locationId', 'name', 'subscriptionIds'];

describe('POST /sandbox/accounts', () => {
  it('creates an isolated account whose API key works at once', async () => {
    const res = await request(t.app).post('/sandbox/accounts').send({ seed: 7, locations: 3 }).expect(201);
    expect(res.body).toMatchObject({
      seed: 7,
      user: { email: expect.stringContaining('@'), password: expect.any(String) },
    });
    expect(res.body.apiKey.length).toBeGreaterThanOrEqual(40);
    expect(res.body.locations).toHaveLength(3);
    for (const location of res.body.locations) expect(Object.keys(location).sort()).toEqual(LOCATION_KEYS);

    const own = await request(t.app).get('/v1/locations').set(bearer(res.body.apiKey)).expect(200);
    expect(own.body.locations.map((l: { locationId: string }) => l.locationId)).toEqual(
      res.body.locations.map((l: { locationId: string }) => l.locationId),
    );
    await request(t.app).get(`/v1/locations/${DEMO_LOCATION_ID}`).set(bearer(res.body.apiKey)).expect(404);
    await request(t.app).get(`/v1/locations/${res.body.locations[0].locationId}`).set(bearer(DEMO_API_KEY)).expect(404);
  });

  it('describes the same household for the same seed, with different ids and secrets', async () => {
    const a = (await request(t.app).post('/sandbox/accounts').send({ seed: 11 }).expect(201)).body;
    const b = (await request(t.app).post('/sandbox/accounts').send({ seed: 11 }).expect(201)).body;
    expect(a.name).toBe(b.name);
    expect(a.locations.map((l: { name: string }) => l.name)).toEqual(b.locations.map((l: { name: string }) => l.name));
    expect(a.apiKey).not.toBe(b.apiKey);
    expect(a.user.email).not.toBe(b.user.email);
    expect(a.locations[0].locationId).not.toBe(b.locations[0].locationId);
  });

  it.each([
    [{ locations: 0 }, 'locations'],
    [{ locations: 11 }, 'locations'],
    [{ seed: -1 }, 'seed'],
    [{ seed: 'x' }, 'seed'],
    [{ name: '' }, 'name'],
    [{ colour: 'blue' }, 'colour'],
  ])('refuses %j naming %s', async (body, parameter) => {
    const res = await request(t.app).post('/sandbox/accounts').send(body).expect(400);
    expect(res.body.parameter).toBe(parameter);
  });

  it('requires the admin token when ADMIN_TOKEN is set', async () => {
    const guarded = await buildTestApp({ env: { ADMIN_TOKEN: 'let-me-in' } });
    await request(guarded.app).post('/sandbox/accounts').send({}).expect(401);
    await request(guarded.app).post('/sandbox/accounts').set(bearer('wrong')).send({}).expect(403);
    await request(guarded.app).post('/sandbox/accounts').set(bearer('let-me-in')).send({}).expect(201);
    await request(guarded.app).get('/sandbox/admin/accounts').set(bearer(DEMO_API_KEY)).expect(403);
    await request(guarded.app).get('/sandbox/admin/accounts').set(bearer('let-me-in')).expect(200);
  });
});

describe('resets', () => {
  it('POST /sandbox/reset puts only the calling account back to its initial state', async () => {
    await setHomeAway(t, 'away').expect(200);
    await request(t.app)
      .post(`/v1/locations/${DEMO_LOCATION_ID}/subscriptions`)
      .set(bearer(DEMO_API_KEY))
      .send({ endpoint: 'https://example.com/h' })
      .expect(200);
    await injectFault(t, { path: '/v1/subscriptions', status: 500 }).expect(201);
    const other = await request(t.app).get('/v1/locations').set(bearer(OTHER_API_KEY));
    await request(t.app)
      .put(`/v1/locations/${other.body.locations[0].locationId}`)
      .set(bearer(OTHER_API_KEY))
      .send({ homeAway: 'away' })
      .expect(200);

    const res = await request(t.app).post('/sandbox/reset').set(bearer(DEMO_API_KEY)).expect(200);
    expect(res.body.locations).toHaveLength(DEMO_LOCATIONS.length);

    const location = await request(t.app).get(`/v1/locations/${DEMO_LOCATION_ID}`).set(bearer(DEMO_API_KEY));
    expect(location.body).toMatchObject({ homeAway: 'home', subscriptionIds: [] });
    await request(t.app).get('/v1/subscriptions').set(bearer(DEMO_API_KEY)).expect(200);
    const journal = await request(t.app).get('/sandbox/requests').set(bearer(DEMO_API_KEY));
    // Only the reset call itself and what came after it remain.
    expect(journal.body.requests.map((r: { path: string }) => r.path)).toEqual([
      '/v1/subscriptions',
      `/v1/locations/${DEMO_LOCATION_ID}`,
      '/sandbox/reset',
    ]);
    const otherAfter = await request(t.app)
      .get(`/v1/locations/${other.body.locations[0].locationId}`)
      .set(bearer(OTHER_API_KEY));
    expect(otherAfter.body.homeAway).toBe('away');
  });

  it('POST /sandbox/admin/reset puts every account back to the fixtures and drops generated ones', async () => {
    const created = (await request(t.app).post('/sandbox/accounts').send({}).expect(201)).body;
    await setHomeAway(t, 'away').expect(200);
    await request(t.app).post('/sandbox/admin/reset').expect(200);
    await request(t.app).get('/v1/locations').set(bearer(created.apiKey)).expect(403);
    const location = await request(t.app).get(`/v1/locations/${DEMO_LOCATION_ID}`).set(bearer(DEMO_API_KEY));
    expect(location.body.homeAway).toBe('home');
    const accounts = await request(t.app).get('/sandbox/admin/accounts').expect(200);
    expect(accounts.body.accounts.map((a: { origin: string }) => a.origin)).toEqual(['fixture', 'fixture']);
  });
});

describe('GET /sandbox/requests', () => {
  it("lists the account's requests newest first, with method, path, query, status and time, and filters them", async () => {
    await request(t.app).get('/v1/locations?perPage=1').set(bearer(DEMO_API_KEY)).expect(200);
    await request(t.app).get('/v1/locations/nope').set(bearer(DEMO_API_KEY)).expect(404);
    await request(t.app).get('/v1/locations').set(bearer(OTHER_API_KEY)).expect(200);
    const res = await request(t.app).get('/sandbox/requests').set(bearer(DEMO_API_KEY)).expect(200);
    expect(res.body.requests).toEqual([
      expect.objectContaining({ method: 'GET', path: '/v1/locations/nope', status: 404, time: expect.any(String) }),
      expect.objectContaining({
        method: 'GET',
        path: '/v1/locations',
        query: { perPage: '1' },
        status: 200,
        auth: 'api_key',
      }),
    ]);
    const only404 = await request(t.app).get('/sandbox/requests?status=404').set(bearer(DEMO_API_KEY)).expect(200);
    expect(only404.body.requests).toHaveLength(1);
    await request(t.app).get('/sandbox/requests?limit=0').set(bearer(DEMO_API_KEY)).expect(400);
  });

  it('keeps a bounded number of entries per account', async () => {
    for (let i = 0; i < JOURNAL_LIMIT + 5; i++)
      await request(t.app)
        .get(`/v1/locations?page=${i + 1}`)
        .set(bearer(DEMO_API_KEY));
    expect(await t.store.journal.list(DEMO_ACCOUNT_ID, 10_000)).toHaveLength(JOURNAL_LIMIT);
    const res = await request(t.app).get('/sandbox/requests?limit=1').set(bearer(DEMO_API_KEY));
    expect(res.body.requests[0].query).toEqual({ page: String(JOURNAL_LIMIT + 5) });
  });
});

describe('POST /sandbox/tokens/expire', () => {
  const token = (accessToken: string, accountId = DEMO_ACCOUNT_ID) => ({
    accessToken,
    clientId: 'demo-client',
    userId: 'u',
    accountId,
    expiresAt: new Date(t.clock.now().getTime() + 3_600_000).toISOString(),
    revokedAt: null,
    grantId: 'g',
  });

  it('expires every access token of the account now, or just one', async () => {
    await changeDoc(t, (d) => void d.accessTokens.push(token('token-one'), token('token-two')));
    await request(t.app).get('/v1/locations').set(bearer('token-one')).expect(200);
    const one = await request(t.app)
      .post('/sandbox/tokens/expire')
      .set(bearer(DEMO_API_KEY))
      .send({ accessToken: 'token-one' })
      .expect(200);
    expect(one.body).toEqual({ expired: 1, refreshTokens: expect.stringMatching(/^Unchanged: /) });
    const refused = await request(t.app).get('/v1/locations').set(bearer('token-one')).expect(403);
    expect(refused.body.error).toBe('token_expired');
    await request(t.app).get('/v1/locations').set(bearer('token-two')).expect(200);
    const all = await request(t.app).post('/sandbox/tokens/expire').set(bearer(DEMO_API_KEY)).expect(200);
    expect(all.body).toEqual({ expired: 1, refreshTokens: expect.stringMatching(/^Unchanged: /) });
    await request(t.app).get('/v1/locations').set(bearer('token-two')).expect(403);
  });

  it("refuses another account's token with 404", async () => {
    await changeDoc(t, (d) => void d.accessTokens.push(token('foreign', OTHER_ACCOUNT_ID)), OTHER_ACCOUNT_ID);
    await request(t.app)
      .post('/sandbox/tokens/expire')
      .set(bearer(DEMO_API_KEY))
      .send({ accessToken: 'foreign' })
      .expect(404);
  });
});

describe("the dashboard's own requests", () => {
  it('stay out of the journal and are not hit by injected faults or the rate limit', async () => {
    const dashboardToken = await givenDashboardToken(t);
    await injectFault(t, { status: 503, times: null }).expect(201);
    await injectFault(t, { rateLimit: { requests: 1, perSeconds: 60 } }).expect(201);
    for (let i = 0; i < 3; i++) await request(t.app).get('/v1/locations').set(bearer(dashboardToken)).expect(200);
    await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(503);
    const journal = await request(t.app).get('/sandbox/requests').set(bearer(DEMO_API_KEY));
    expect(journal.body.requests.map((r: { path: string }) => r.path)).toEqual([
      '/v1/locations',
      '/sandbox/faults',
      '/sandbox/faults',
    ]);
  });
});

describe('/sandbox/faults', () => {
  it('fails the next matching request the given number of times, with the given status and body', async () => {
    await injectFault(t, {
      method: 'GET',
      path: '/v1/locations',
      status: 503,
      body: { message: 'down' },
      times: 2,
    }).expect(201);
    await request(t.app).get(`/v1/locations/${DEMO_LOCATION_ID}`).set(bearer(DEMO_API_KEY)).expect(200);
    for (let i = 0; i < 2; i++) {
      const res = await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(503);
      expect(res.body).toEqual({ message: 'down' });
      expect(res.headers['x-sandbox-fault']).toBe('injected');
      expect(res.headers['retry-after']).toBeUndefined();
    }
    await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(200);
  });

  it('answers a fault stored before faults had retryAfter without a Retry-After', async () => {
    await changeDoc(t, (d) => void d.faults.push(givenFault(DEMO_ACCOUNT_ID, 'f-old')));
    const res = await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(503);
    expect(res.headers['retry-after']).toBeUndefined();
  });

  it('leaves requests of another method alone, and the fault waiting for its own', async () => {
    await injectFault(t, { method: 'POST', path: '/v1/locations', status: 503 }).expect(201);
    await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(200);
    const waiting = await request(t.app).get('/sandbox/faults').set(bearer(DEMO_API_KEY)).expect(200);
    expect(waiting.body.faults).toEqual([
      expect.objectContaining({ method: 'POST', path: '/v1/locations', status: 503, times: 1 }),
    ]);
  });

  it('answers with the first queued fault that matches, in the order they were queued', async () => {
    const queue = (fault: object) => injectFault(t, fault).expect(201);
    await queue({ method: 'DELETE', status: 500 });
    await queue({ method: 'GET', status: 503 });
    await queue({ method: 'GET', status: 504 });
    await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(503);
    await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(504);
    await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(200);
    const left = await request(t.app).get('/sandbox/faults').set(bearer(DEMO_API_KEY)).expect(200);
    expect(left.body.faults).toEqual([expect.objectContaining({ method: 'DELETE', status: 500 })]);
  });

  it('answers a fault of one use once, however many requests race for it', async () => {
    await injectFault(t, { status: 503 }).expect(201);
    const racing = await Promise.all(
      Array.from({ length: 6 }, () => request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY))),
    );
    expect(racing.map((res) => res.status).sort()).toEqual([200, 200, 200, 200, 200, 503]);
  });

  it('matches path prefixes ending in *, only for the account that set them', async () => {
    await injectFault(t, { path: '/v1/locations/*', status: 500, times: null }).expect(201);
    await request(t.app).get('/v1/locations').set(bearer(OTHER_API_KEY)).expect(200);
    await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(200);
    const res = await request(t.app).get(`/v1/locations/${DEMO_LOCATION_ID}`).set(bearer(DEMO_API_KEY)).expect(500);
    expect(res.body).toEqual({
      error: 'injected_fault',
      message: `Fault injected through /sandbox/faults: 500 for GET /v1/locations/${DEMO_LOCATION_ID}`,
    });
    await request(t.app).get(`/v1/locations/${DEMO_LOCATION_ID}`).set(bearer(DEMO_API_KEY)).expect(500);
    await request(t.app).delete('/sandbox/faults').set(bearer(DEMO_API_KEY)).expect(200);
    await request(t.app).get(`/v1/locations/${DEMO_LOCATION_ID}`).set(bearer(DEMO_API_KEY)).expect(200);
  });

  // A delay is real time (the partner's client waits for it), so it is measured; a lower bound
  // cannot fail on a slow machine. Timers may fire a millisecond early against performance.now.
  const timed = async (send: () => Promise<unknown>): Promise<number> => {
    const started = performance.now();
    await send();
    return performance.now() - started;
  };

  it('adds latency without failing when only delayMs is given', async () => {
    await injectFault(t, { delayMs: 300 }).expect(201);
    const elapsedMs = await timed(() => request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(200));
    expect(elapsedMs).toBeGreaterThanOrEqual(299);
    const left = await request(t.app).get('/sandbox/faults').set(bearer(DEMO_API_KEY));
    expect(left.body.faults).toEqual([]);
  });

  it('delays an injected failure by delayMs before it answers', async () => {
    await injectFault(t, { status: 502, delayMs: 250 }).expect(201);
    const elapsedMs = await timed(() => request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(502));
    expect(elapsedMs).toBeGreaterThanOrEqual(249);
  });

  it('enforces a per-account rate limit with 429 and a Retry-After that follows the clock', async () => {
    await injectFault(t, { rateLimit: { requests: 2, perSeconds: 60 } }).expect(201);
    await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(200);
    t.clock.advance(15_000);
    await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(200);
    const limited = await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(429);
    expect(limited.headers['retry-after']).toBe('45');
    expect(limited.body.error).toBe('rate_limited');
    expect(limited.body.message).toMatch(/retry after 45 s/);
    // The other account's limit counts its own requests only.
    await injectFault(t, { rateLimit: { requests: 1, perSeconds: 60 } }, OTHER_API_KEY).expect(201);
    await request(t.app).get('/v1/locations').set(bearer(OTHER_API_KEY)).expect(200);
    await request(t.app).get('/v1/locations').set(bearer(OTHER_API_KEY)).expect(429);
    t.clock.advance(45_000);
    await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(200);
  });

  it.each([
    [{}, 'status'],
    [{ status: 200 }, 'status'],
    [{ status: 500, path: 'locations' }, 'path'],
    [{ status: 500, method: 'FETCH' }, 'method'],
    [{ status: 500, times: 0 }, 'times'],
    [{ status: 500, delayMs: 600000 }, 'delayMs'],
    [{ status: 500, colour: 'red' }, 'colour'],
    [{ rateLimit: { requests: 0, perSeconds: 1 } }, 'rateLimit.requests'],
  ])('refuses %j naming %s', async (body, parameter) => {
    const res = await injectFault(t, body).expect(400);
    expect(res.body.parameter).toBe(parameter);
  });
});
