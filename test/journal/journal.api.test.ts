import request from 'supertest';

import { JOURNAL_ERROR_BODY_LIMIT } from '../../src/journal/journal.js';
import { accountChannel } from '../../src/live/index.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_ACCOUNT_ID, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});

const journal = async (query = ''): Promise<{ method: string; path: string; status: number; errorBody: string | null }[]> =>
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
    await request(t.app).post('/sandbox/faults').set(bearer(DEMO_API_KEY)).send({ path: '/v1/locations', status: 503, body: { error: 'maintenance', message: long } }).expect(201);
    await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(503);
    const [entry] = await journal('?status=503');
    expect(entry!.errorBody!.startsWith('{"error":"maintenance","message":"xxx')).toBe(true);
    expect(entry!.errorBody).toHaveLength(JOURNAL_ERROR_BODY_LIMIT + 1);
    expect(entry!.errorBody!.endsWith('…')).toBe(true);
  });

  it('records a refused change with its error', async () => {
    await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(200);
    await request(t.app).put('/v1/locations/nope').set(bearer(DEMO_API_KEY)).send({ homeAway: 'sideways' }).expect((res) => expect(res.status).toBeGreaterThanOrEqual(400));
    const [entry] = await journal();
    expect(entry!.errorBody).toMatch(/"error":/);
  });

  it('tells the account\'s event stream of each request it records', async () => {
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

describe('the journal filters', () => {
  beforeEach(async () => {
    // Oldest first: the journal lists them newest first.
    await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(200);
    await request(t.app).get(`/v1/locations/${DEMO_LOCATION_ID}`).set(bearer(DEMO_API_KEY)).expect(200);
    await request(t.app).put(`/v1/locations/${DEMO_LOCATION_ID}`).set(bearer(DEMO_API_KEY)).send({ homeAway: 'away' }).expect(200);
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

  it('filters combine, and limit counts the matching entries, newest first', async () => {
    expect(seen(await journal('?method=get&path=/v1/'))).toEqual([`GET ${location}`, 'GET /v1/locations']);
    expect(seen(await journal('?method=get&path=/v1/&limit=1'))).toEqual([`GET ${location}`]);
    expect(seen(await journal('?path=/v1/&status=200&method=PUT'))).toEqual([`PUT ${location}`]);
  });
});
