import request from 'supertest';

import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

const get = (url: string): request.Test => request(t.app).get(url).set(bearer(DEMO_API_KEY));

/** The answer to `url` and to the same request without `extra`: same status and body, as production ignores them. */
async function withAndWithout(path: string, query: string, extra: string): Promise<request.Response> {
  const plain = await get(`${path}${query ? `?${query}` : ''}`);
  const res = await get(`${path}?${query ? `${query}&` : ''}${extra}`);
  expect({ status: res.status, body: res.body }).toEqual({ status: plain.status, body: plain.body });
  expect(plain.headers['x-sandbox-warning']).toBeUndefined();
  return res;
}

describe('X-Sandbox-Warning on /v1 answers to requests with query parameters production does not know', () => {
  it('GET /v1/locations?pagesize=10: 200 and the same body as without it, and the header points to perPage', async () => {
    const res = await withAndWithout('/v1/locations', '', 'pagesize=10');
    expect(res.status).toBe(200);
    expect(res.body.perPage).toBe(50);
    expect(res.headers['x-sandbox-warning']).toBe(
      'ignored, as production does: unknown query parameter "pagesize" (did you mean "perPage"?)',
    );
  });

  it.each([
    ['per_page=5', '"per_page" (did you mean "perPage"?)'],
    ['PerPage=5', '"PerPage" (did you mean "perPage"?)'],
    ['pgae=2', '"pgae" (did you mean "page"?)'],
    ['limit=5', '"limit" (did you mean "perPage"?)'],
    ['colour=blue', '"colour"'],
  ])('names %s, with a near match where there is one', async (extra, named) => {
    const res = await withAndWithout('/v1/locations', '', extra);
    expect(res.headers['x-sandbox-warning']).toBe(`ignored, as production does: unknown query parameter ${named}`);
  });

  it('names each ignored parameter of a readings request, and not the ones it knows', async () => {
    const query = 'startTime=2026-03-01T00:00:00Z&endTime=2026-03-03T00:00:00Z&perPage=5';
    const res = await withAndWithout(
      `/v1/locations/${DEMO_LOCATION_ID}/readings/water-usage`,
      query,
      'group_by=day&from=2026-01-01',
    );
    expect(res.status).toBe(200);
    expect(res.headers['x-sandbox-warning']).toBe(
      'ignored, as production does: unknown query parameters "group_by" (did you mean "groupBy"?), "from" (did you mean "startTime"?)',
    );
  });

  it('names the parameters of a route that takes none, and is sent with an error answer too', async () => {
    const res = await withAndWithout(`/v1/locations/${DEMO_LOCATION_ID}`, '', 'expand=devices');
    expect(res.headers['x-sandbox-warning']).toBe('ignored, as production does: unknown query parameter "expand"');
    const missing = await withAndWithout('/v1/locations/not-a-location', '', 'verbose=1');
    expect(missing.status).toBe(404);
    expect(missing.headers['x-sandbox-warning']).toContain('"verbose"');
  });

  it('is not sent when every parameter is known', async () => {
    const res = await get('/v1/locations?page=1&perPage=10').expect(200);
    expect(res.headers['x-sandbox-warning']).toBeUndefined();
  });

  it('stays ASCII and bounded whatever the names: escaped, shortened, and at most ten named', async () => {
    const many = Array.from({ length: 14 }, (_, i) => `x${i}=1`).join('&');
    const res = await withAndWithout(
      '/v1/locations',
      '',
      `${encodeURIComponent('größe')}=1&${'a'.repeat(300)}=1&${many}`,
    );
    const warning = String(res.headers['x-sandbox-warning']);
    expect(warning).toMatch(/^[\x20-\x7e]+$/);
    expect(warning).toContain('"gr\\u00f6\\u00dfe"');
    expect(warning).toContain(`"${'a'.repeat(40)}..."`);
    expect(warning).toMatch(/ and 6 more$/);
  });

  it('is a /v1 matter only: /sandbox keeps refusing unknown parameters with a 400 naming them', async () => {
    const res = await get('/sandbox/deliveries?pagesize=10').expect(400);
    expect(res.headers['x-sandbox-warning']).toBeUndefined();
    expect(res.body.parameter).toBe('pagesize');
  });
});

describe('a query sent again (its parse, warning and check are kept per operation, by its text)', () => {
  it('gets the same answer, X-Sandbox-Warning and journal entry each time', async () => {
    const url = `/v1/locations/${DEMO_LOCATION_ID}/readings/water-usage?startTime=2026-03-01T00:00:00Z&endTime=2026-03-02T00:00:00Z&groupBy=day&pagesize=5`;
    const first = await get(url).expect(200);
    for (let i = 0; i < 3; i++) {
      const again = await get(url).expect(200);
      expect(again.text).toBe(first.text);
      expect(again.headers['x-sandbox-warning']).toBe(first.headers['x-sandbox-warning']);
    }
    expect(first.headers['x-sandbox-warning']).toContain('"pagesize" (did you mean "perPage"?)');
    const journal = await request(t.app).get('/sandbox/requests?limit=4').set(bearer(DEMO_API_KEY)).expect(200);
    const queries = (journal.body.requests as { query: unknown }[]).map((r) => r.query);
    expect(queries).toEqual(
      Array(4).fill({
        startTime: '2026-03-01T00:00:00Z',
        endTime: '2026-03-02T00:00:00Z',
        groupBy: 'day',
        pagesize: '5',
      }),
    );
  });

  it('that fails its check fails it again, with the same 400, however often it is sent', async () => {
    const url = `/v1/locations/${DEMO_LOCATION_ID}/readings/water-usage?startTime=yesterday`;
    const first = await get(url).expect(400);
    expect(first.body).toMatchObject({ error: 'invalid_parameter' });
    for (let i = 0; i < 2; i++) expect((await get(url).expect(400)).body).toEqual(first.body);
  });

  it('is told apart from another query of the same operation', async () => {
    const base = `/v1/locations/${DEMO_LOCATION_ID}/readings/water-usage?startTime=2026-03-01T00:00:00Z&endTime=2026-03-05T00:00:00Z&groupBy=day&perPage=2`;
    const two = await get(base).expect(200);
    const one = await get(base.replace('perPage=2', 'perPage=1')).expect(200);
    expect(two.body.readings).toHaveLength(2);
    expect(one.body.readings).toHaveLength(1);
    expect((await get(base).expect(200)).text).toBe(two.text);
  });
});
