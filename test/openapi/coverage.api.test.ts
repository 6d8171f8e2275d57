import type { Express, Router } from 'express';
import request from 'supertest';

import type { OperationHandler } from '../../src/http/operation.js';
import { ALL_OPERATIONS, buildOpenApiDocument } from '../../src/openapi/index.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';
import { checkExchange, takeViolations } from '../helpers/openapi-check.js';

interface Layer {
  route?: { path: string; methods: Record<string, boolean>; stack: { handle: Partial<OperationHandler> }[] };
  handle: { stack?: Layer[] };
}

/** Every route of the app's routers: its method and path, and the operation its handler serves, if any. */
function mountedRoutes(app: Express): { route: string; operationId: string | null }[] {
  const found: { route: string; operationId: string | null }[] = [];
  const walk = (stack: Layer[]): void => {
    for (const layer of stack) {
      if (layer.route) {
        const handler = layer.route.stack.at(-1)?.handle;
        for (const method of Object.keys(layer.route.methods).filter((m) => m !== '_all')) {
          found.push({
            route: `${method.toUpperCase()} ${layer.route.path}`,
            operationId: handler?.operation?.operationId ?? null,
          });
        }
      } else if (layer.handle.stack) {
        walk(layer.handle.stack);
      }
    }
  };
  walk((app as unknown as { router: Router & { stack: Layer[] } }).router.stack);
  return found;
}

/** Routes that are deliberately not in the document: the dashboard's page and its own calls (session cookie, not the API's credentials), and the files of /docs. */
const NOT_IN_THE_DOCUMENT = [
  'GET /',
  'POST /dashboard/sign-in',
  'GET /dashboard/sign-in',
  'POST /dashboard/sign-out',
  'POST /dashboard/token',
  'GET /dashboard/events',
  'GET /dashboard/assets/:file',
  'GET /dashboard/demo-receiver',
  'POST /dashboard/demo-receiver',
  'GET /docs/init.js',
  'GET /docs/assets/:file',
];

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

describe('every route is documented', () => {
  const document = buildOpenApiDocument({ publicUrl: 'http://localhost:8080', version: 'test' }) as {
    paths: Record<string, Record<string, { operationId: string }>>;
  };
  const documented = new Set(
    Object.values(document.paths).flatMap((item) => Object.values(item).map((op) => op.operationId)),
  );

  it("mounts no route without an operation, except the dashboard's and the docs files", () => {
    const bare = mountedRoutes(t.app)
      .filter((r) => r.operationId === null)
      .map((r) => r.route);
    expect(bare.sort()).toEqual([...NOT_IN_THE_DOCUMENT].sort());
  });

  it('documents every mounted operation, and mounts every documented one', () => {
    const mounted = new Set(mountedRoutes(t.app).flatMap((r) => (r.operationId === null ? [] : [r.operationId])));
    expect([...mounted].filter((id) => !documented.has(id))).toEqual([]);
    expect(ALL_OPERATIONS.map((op) => op.operationId).filter((id) => !mounted.has(id))).toEqual([]);
  });
});

describe('the response check', () => {
  afterEach(() => {
    takeViolations();
  });

  it('fails a response whose presenter adds a key that production does not have', async () => {
    const res = await request(t.app).get(`/v1/locations/${DEMO_LOCATION_ID}`).set(bearer(DEMO_API_KEY)).expect(200);
    expect(takeViolations()).toEqual([]);
    const withExtraKey = { ...res.body, timeZone: 'America/New_York' };
    checkExchange({
      method: 'GET',
      url: `/v1/locations/${DEMO_LOCATION_ID}`,
      status: 200,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify(withExtraKey),
    });
    expect(takeViolations()).toEqual([
      expect.stringMatching(/does not match the document: .*must NOT have additional properties/),
    ]);
  });

  it('fails a nested extra key, e.g. on a device of a location', async () => {
    const res = await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(200);
    res.body.locations[0].devices[0].firmware = '1.2.3';
    checkExchange({
      method: 'GET',
      url: '/v1/locations',
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(res.body),
    });
    expect(takeViolations()).toEqual([expect.stringContaining('must NOT have additional properties')]);
  });

  it('fails an undocumented status, an undocumented route and a missing challenge header', () => {
    const json = { 'content-type': 'application/json' };
    checkExchange({
      method: 'GET',
      url: '/v1/locations',
      status: 409,
      headers: json,
      body: '{"error":"x","message":"y"}',
    });
    checkExchange({ method: 'GET', url: '/v1/meters', status: 200, headers: json, body: '{}' });
    checkExchange({
      method: 'GET',
      url: '/v1/locations',
      status: 401,
      headers: json,
      body: '{"error":"missing_credentials","message":"m"}',
    });
    const found = takeViolations();
    expect(found).toEqual([
      expect.stringContaining('status 409 is not documented'),
      expect.stringContaining('on a route the document does not list'),
      expect.stringContaining('WWW-Authenticate'),
    ]);
  });

  it("accepts an injected fault's own body only with the X-Sandbox-Fault header", async () => {
    await request(t.app)
      .post('/sandbox/faults')
      .set(bearer(DEMO_API_KEY))
      .send({ path: '/v1/locations', status: 503, body: { message: 'down' } })
      .expect(201);
    const res = await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(503);
    expect(res.headers['x-sandbox-fault']).toBe('injected');
    expect(takeViolations()).toEqual([]);
    checkExchange({
      method: 'GET',
      url: '/v1/locations',
      status: 503,
      headers: { 'content-type': 'application/json' },
      body: '{"message":"down"}',
    });
    expect(takeViolations()).toEqual([expect.stringContaining('status 503 is not documented')]);
  });
});
