import request from 'supertest';

import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID, OTHER_API_KEY, OTHER_LOCATION_ID } from '../helpers/demo.js';
import { API_ROUTES, fillPath, routeName } from './route-table.js';

/**
 * Every /v1 route against every kind of caller: the request of the route table for the demo
 * account's resources, with each caller's credentials. A route that addresses one resource (a
 * location, a subscription) answers another account's key 404.
 */
const routes = API_ROUTES.filter((route) => route.path.startsWith('/v1/')).map((route) => ({
  ...route,
  scoped: route.path.includes('/:'),
}));

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
  callers
    .filter((c) => !c.foreign || route.scoped)
    .map((caller) => [routeName(route), caller.name, route, caller] as const),
);

describe.each(cases)('%s with %s', (_route, _caller, route, caller) => {
  it(`answers ${caller.status === 'ok' ? route.ok : caller.status}${caller.error ? ` ${caller.error}` : ''}`, async () => {
    const path = fillPath(route.path, { locationId: DEMO_LOCATION_ID, subscriptionId: subscriptionIds.demo });
    let req = request(t.app)
      [route.method](route.query ? `${path}?${route.query}` : path)
      .set(caller.headers);
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
