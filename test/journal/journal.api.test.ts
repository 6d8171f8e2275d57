import { performance } from 'node:perf_hooks';

import request from 'supertest';

import {
  errorBodyExcerpt,
  JOURNAL_ERROR_BODY_LIMIT,
  JOURNAL_PATH_LIMIT,
  JOURNAL_QUERY_LIMIT,
} from '../../src/journal/journal.js';
import { accountChannel } from '../../src/live/index.js';
import { bearer, DEMO_ACCOUNT_ID, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';
import { injectFault } from '../helpers/faults.js';
import { setHomeAway } from '../helpers/home-away.js';
import { useTestApp } from '../helpers/use-test-app.js';

const t = useTestApp();

const journal = async (
  query = '',
): Promise<{ method: string; path: string; status: number; errorBody: string | null }[]> =>
  (await request(t.app).get(`/sandbox/requests${query}`).set(bearer(DEMO_API_KEY)).expect(200)).body.requests;

describe('the request journal keeps what an error answer said', () => {
  it('records the body of an answer of 400 or more, and null for the others', async () => {
    const notFound = await request(t.app).get('/v1/locations/nope').set(bearer(DEMO_API_KEY)).expect(404);
    await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(200);
    const [ok, failed] = await journal();
    expect(ok).toMatchObject({ path: '/v1/locations', status: 200, errorBody: null });
    expect(failed).toMatchObject({ path: '/v1/locations/nope', status: 404 });
    expect(JSON.parse(failed!.errorBody!)).toEqual(notFound.body);
  });

  it('records the body of an injected fault, cut at the limit', async () => {
    const long = 'x'.repeat(JOURNAL_ERROR_BODY_LIMIT * 2);
    await injectFault(t, { path: '/v1/locations', status: 503, body: { error: 'maintenance', message: long } }).expect(
      201,
    );
    await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(503);
    const [entry] = await journal('?status=503');
    expect(entry!.errorBody!.startsWith('{"error":"maintenance","message":"xxx')).toBe(true);
    expect(entry!.errorBody).toHaveLength(JOURNAL_ERROR_BODY_LIMIT + 1);
    expect(entry!.errorBody!.endsWith('…')).toBe(true);
  });

  it('records a refused change with its error', async () => {
    await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(200);
    await request(t.app)
      .put('/v1/locations/nope')
      .set(bearer(DEMO_API_KEY))
      .send({ homeAway: 'sideways' })
      .expect((res) => expect(res.status).toBeGreaterThanOrEqual(400));
    const [entry] = await journal();
    expect(entry!.errorBody).toMatch(/"error":/);
  });

  it("tells the account's event stream of each request it records", async () => {
    const heard: unknown[] = [];
    const off = await t.store.events.subscribe(accountChannel(DEMO_ACCOUNT_ID), (m) => heard.push(m));
    try {
      await request(t.app).get('/v1/locations/nope').set(bearer(DEMO_API_KEY)).expect(404);
      await new Promise<void>((resolve) => {
        const check = (): void => (heard.length > 0 ? resolve() : void setImmediate(check));
        check();
      });
      expect(heard).toEqual([{ type: 'request', method: 'GET', path: '/v1/locations/nope', status: 404 }]);
    } finally {
      await off();
    }
  });
});

describe('what the journal leaves out', () => {
  it('reading the journal, and the relay plumbing of water-sandbox listen, but any other call to those paths is in', async () => {
    await request(t.app)
      .post('/sandbox/relays')
      .set(bearer(DEMO_API_KEY))
      .expect((res) => expect(res.status).toBeLessThan(500));
    await request(t.app).get('/sandbox/relays/nope/requests').set(bearer(DEMO_API_KEY)).expect(404);
    await request(t.app).get('/sandbox/requests?limit=1').set(bearer(DEMO_API_KEY)).expect(200);
    await request(t.app)
      .delete('/sandbox/requests')
      .set(bearer(DEMO_API_KEY))
      .expect((res) => expect(res.status).toBeGreaterThanOrEqual(400));
    await request(t.app).get('/v1/sandbox/requests').set(bearer(DEMO_API_KEY)).expect(404);
    expect((await journal()).map((e) => `${e.method} ${e.path}`)).toEqual([
      'GET /v1/sandbox/requests',
      'DELETE /sandbox/requests',
    ]);
  });
});

describe('an entry', () => {
  it('keeps a long path and query cut to a bounded size (a request line may take 16 kB; an account keeps 200 entries)', async () => {
    const longPath = `/v1/locations/${'p'.repeat(5000)}`;
    const query = `first=1&huge=${'q'.repeat(6000)}&${Array.from({ length: 40 }, (_, i) => `n${i}=${'v'.repeat(100)}`).join('&')}`;
    await request(t.app).get(`${longPath}?${query}`).set(bearer(DEMO_API_KEY)).expect(404);
    const [entry] = (await request(t.app).get('/sandbox/requests?limit=1').set(bearer(DEMO_API_KEY)).expect(200)).body
      .requests;
    expect(entry.path).toBe(`${longPath.slice(0, JOURNAL_PATH_LIMIT)}…`);
    expect(JSON.stringify(entry.query).length).toBeLessThanOrEqual(JOURNAL_QUERY_LIMIT);
    // The parameters in order while they fit, each value cut at a tenth of the limit.
    expect(entry.query.first).toBe('1');
    expect(entry.query.huge).toBe(`${'q'.repeat(JOURNAL_QUERY_LIMIT / 10)}…`);
    expect(entry.query.n0).toBe('v'.repeat(100));
    expect(Object.keys(entry.query).length).toBeLessThan(42);
  });

  it("keeps the request's query, its status, and its time taken in ms to a tenth", async () => {
    await injectFault(t, { path: '/v1/locations', status: 400, delayMs: 60 }).expect(201);
    const started = performance.now();
    await request(t.app).get('/v1/locations?units=gallons&x=1').set(bearer(DEMO_API_KEY)).expect(400);
    const wallMs = performance.now() - started;
    const [entry] = (await request(t.app).get('/sandbox/requests?limit=1').set(bearer(DEMO_API_KEY)).expect(200)).body
      .requests;
    expect(entry).toMatchObject({
      method: 'GET',
      path: '/v1/locations',
      query: { units: 'gallons', x: '1' },
      status: 400,
      errorBody: expect.stringContaining('"error"'),
    });
    // Timers may fire a millisecond early against performance.now.
    expect(entry.durationMs).toBeGreaterThanOrEqual(59);
    expect(entry.durationMs).toBeLessThanOrEqual(wallMs);
    expect(Math.round(entry.durationMs * 10)).toBeCloseTo(entry.durationMs * 10, 6);
  });
});

describe('what an entry keeps of an error body', () => {
  it('is the text as sent: a string, a Buffer, JSON, or nothing', () => {
    expect(errorBodyExcerpt('Not found')).toBe('Not found');
    expect(errorBodyExcerpt(Buffer.from('{"error":"x"}', 'utf8'))).toBe('{"error":"x"}');
    expect(errorBodyExcerpt({ error: 'x' })).toBe('{"error":"x"}');
    expect(errorBodyExcerpt(undefined)).toBe('');
    expect(errorBodyExcerpt(null)).toBe('');
  });

  it('is whole up to the limit, and cut with an ellipsis after it', () => {
    const atLimit = 'x'.repeat(JOURNAL_ERROR_BODY_LIMIT);
    expect(errorBodyExcerpt(atLimit)).toBe(atLimit);
    expect(errorBodyExcerpt(`${atLimit}y`)).toBe(`${atLimit}…`);
  });
});

describe('the facts an entry keeps for the readiness report', () => {
  const retryAfterOfLast = async (): Promise<number | undefined> =>
    (await t.store.journal.list(DEMO_ACCOUNT_ID, 1))[0]!.facts?.retryAfter;
  const answered = async (fault: Record<string, unknown>, status: number): Promise<number | undefined> => {
    await injectFault(t, { path: '/v1/locations', ...fault }).expect(201);
    await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(status);
    return retryAfterOfLast();
  };

  it("note a 429's or a 503's Retry-After in seconds, 0 included, and no other answer's", async () => {
    expect(await answered({ status: 503, retryAfter: 7 }, 503)).toBe(7);
    expect(await answered({ status: 429, retryAfter: 0 }, 429)).toBe(0);
    expect(await answered({ status: 500, retryAfter: 4 }, 500)).toBeUndefined();
    expect(await answered({ status: 503 }, 503)).toBeUndefined();
  });

  it("note the rate limit's Retry-After", async () => {
    await injectFault(t, { rateLimit: { requests: 1, perSeconds: 60 } }).expect(201);
    await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(200);
    await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(429);
    expect(await retryAfterOfLast()).toBe(60);
  });
});

describe('the journal filters', () => {
  beforeEach(async () => {
    // Oldest first: the journal lists them newest first.
    await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(200);
    await request(t.app).get(`/v1/locations/${DEMO_LOCATION_ID}`).set(bearer(DEMO_API_KEY)).expect(200);
    await setHomeAway(t, 'away').expect(200);
    await request(t.app).get('/sandbox/faults').set(bearer(DEMO_API_KEY)).expect(200);
  });
  const seen = (entries: { method: string; path: string }[]): string[] => entries.map((e) => `${e.method} ${e.path}`);
  const location = `/v1/locations/${DEMO_LOCATION_ID}`;

  it('method keeps the requests of that method, in any case', async () => {
    expect(seen(await journal('?method=put'))).toEqual([`PUT ${location}`]);
    expect(seen(await journal('?method=GET'))).toEqual(['GET /sandbox/faults', `GET ${location}`, 'GET /v1/locations']);
    expect(await journal('?method=DELETE')).toEqual([]);
  });

  it('path keeps the requests whose path starts with it', async () => {
    expect(seen(await journal('?path=/v1/locations/'))).toEqual([`PUT ${location}`, `GET ${location}`]);
    expect(seen(await journal('?path=/sandbox'))).toEqual(['GET /sandbox/faults']);
    expect(await journal('?path=/v1/alerts')).toEqual([]);
  });

  it('status keeps the answers of that status', async () => {
    await request(t.app).get('/v1/locations/nope').set(bearer(DEMO_API_KEY)).expect(404);
    expect(seen(await journal('?status=404'))).toEqual(['GET /v1/locations/nope']);
    expect(seen(await journal('?status=200&path=/v1/locations/'))).toEqual([`PUT ${location}`, `GET ${location}`]);
  });

  it('filters combine, and limit counts the matching entries, newest first', async () => {
    expect(seen(await journal('?method=get&path=/v1/'))).toEqual([`GET ${location}`, 'GET /v1/locations']);
    expect(seen(await journal('?method=get&path=/v1/&limit=1'))).toEqual([`GET ${location}`]);
    expect(seen(await journal('?path=/v1/&status=200&method=PUT'))).toEqual([`PUT ${location}`]);
  });
});
