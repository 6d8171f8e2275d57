import request from 'supertest';

import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID, OTHER_API_KEY, OTHER_LOCATION_ID } from '../helpers/demo.js';

/**
 * Every /v1 route against every kind of caller. `own` builds the request for the demo
 * account's resources; `foreign` the same request aimed at the other account's resources.
 */
interface RouteCase {
  name: string;
  method: 'get' | 'put' | 'post' | 'delete';
  path: (ids: { locationId: string; subscriptionId: string }) => string;
  body?: object;
  /** The status the owner gets. */
  ok: number;
  /** Whether the route addresses one resource (and so answers 404 for another account's). */
  scoped: boolean;
}

const START = '2026-03-01T00:00:00Z';
const routes: RouteCase[] = [
  { name: 'list locations', method: 'get', path: () => '/v1/locations', ok: 200, scoped: false },
  { name: 'get location', method: 'get', path: (i) => `/v1/locations/${i.locationId}`, ok: 200, scoped: true },
  {
    name: 'update location',
    method: 'put',
    path: (i) => `/v1/locations/${i.locationId}`,
    body: { homeAway: 'away' },
    ok: 200,
    scoped: true,
  },
  {
    name: 'create subscription',
    method: 'post',
    path: (i) => `/v1/locations/${i.locationId}/subscriptions`,
    body: { endpoint: 'https://example.com/hook' },
    ok: 200,
    scoped: true,
  },
  {
    name: 'list location subscriptions',
    method: 'get',
    path: (i) => `/v1/locations/${i.locationId}/subscriptions`,
    ok: 200,
    scoped: true,
  },
  { name: 'list subscriptions', method: 'get', path: () => '/v1/subscriptions', ok: 200, scoped: false },
  {
    name: 'get subscription',
    method: 'get',
    path: (i) => `/v1/subscriptions/${i.subscriptionId}`,
    ok: 200,
    scoped: true,
  },
  {
    name: 'confirm subscription',
    method: 'get',
    path: (i) => `/v1/subscriptions/${i.subscriptionId}/confirm?confirmationToken=none`,
    ok: 400,
    scoped: true,
  },
  {
    name: 'delete subscription',
    method: 'delete',
    path: (i) => `/v1/subscriptions/${i.subscriptionId}`,
    ok: 200,
    scoped: true,
  },
  {
    name: 'water usage',
    method: 'get',
    path: (i) => `/v1/locations/${i.locationId}/readings/water-usage?startTime=${START}`,
    ok: 200,
    scoped: true,
  },
  {
    name: 'water usage summary',
    method: 'get',
    path: (i) => `/v1/locations/${i.locationId}/readings/water-usage/summary`,
    ok: 200,
    scoped: true,
  },
];

type Caller = {
  name: string;
  headers: Record<string, string>;
  status: number | 'ok';
  error?: string;
  foreign?: boolean;
};
const callers: Caller[] = [
  { name: 'no Authorization header', headers: {}, status: 401, error: 'missing_credentials' },
  {
    name: 'a Bearer header with no key',
    headers: { Authorization: 'Bearer ' },
    status: 401,
    error: 'missing_credentials',
  },
  { name: 'an unknown key', headers: bearer('x'.repeat(46)), status: 403, error: 'invalid_credentials' },
  {
    name: "another account's key on the demo resources",
    headers: bearer(OTHER_API_KEY),
    status: 404,
    error: 'not_found',
    foreign: true,
  },
  { name: 'the right key', headers: bearer(DEMO_API_KEY), status: 'ok' },
];

let t: TestApp;
let subscriptionIds: { demo: string; other: string };

beforeEach(async () => {
  t = await buildTestApp();
  const create = async (key: string, locationId: string): Promise<string> =>
    (
      await request(t.app)
        .post(`/v1/locations/${locationId}/subscriptions`)
        .set(bearer(key))
        .send({ endpoint: 'https://example.com/hook' })
        .expect(200)
    ).body.subscriptionId as string;
  subscriptionIds = {
    demo: await create(DEMO_API_KEY, DEMO_LOCATION_ID),
    other: await create(OTHER_API_KEY, OTHER_LOCATION_ID),
  };
});

const cases = routes.flatMap((route) =>
  callers.filter((c) => !c.foreign || route.scoped).map((caller) => [route.name, caller.name, route, caller] as const),
);

describe.each(cases)('%s with %s', (_route, _caller, route, caller) => {
  it(`answers ${caller.status === 'ok' ? route.ok : caller.status}${caller.error ? ` ${caller.error}` : ''}`, async () => {
    const ids = { locationId: DEMO_LOCATION_ID, subscriptionId: subscriptionIds.demo };
    let req = request(t.app)[route.method](route.path(ids)).set(caller.headers);
    if (route.body) req = req.send(route.body);
    const res = await req;
    const expected = caller.status === 'ok' ? route.ok : caller.status;
    expect({ status: res.status, error: caller.error ? res.body.error : undefined }).toEqual({
      status: expected,
      error: caller.error,
    });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    if (res.status >= 400) expect(typeof res.body.message).toBe('string');
  });
});

it("never shows one account's data to another: each key sees only its own locations", async () => {
  const demo = await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY));
  const other = await request(t.app).get('/v1/locations').set(bearer(OTHER_API_KEY));
  const demoIds = demo.body.locations.map((l: { locationId: string }) => l.locationId);
  const otherIds = other.body.locations.map((l: { locationId: string }) => l.locationId);
  expect(demoIds).toContain(DEMO_LOCATION_ID);
  expect(otherIds).toEqual([OTHER_LOCATION_ID]);
  expect(demoIds).not.toContain(OTHER_LOCATION_ID);
});
