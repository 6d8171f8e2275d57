import type { Express, Router } from 'express';
import request from 'supertest';

import { loadDashboardAssets } from '../../src/dashboard/assets.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';
import { partnerRegistration } from '../helpers/oauth.js';

export type Method = 'get' | 'post' | 'put' | 'delete';

/** The ids a route template can name, all of the demo account. */
export interface RouteIds {
  locationId: string;
  subscriptionId: string;
  alertId: string;
  deliveryId: string;
  runId: string;
  scenario: string;
  /** An OAuth client the demo account registered. */
  clientId: string;
  /** A file name in the route (the dashboard's script asset, a file of /docs/assets). */
  file: string;
  /** An audience link of the presenter view, and its token (none is made: the harnesses send no session). */
  linkId: string;
  token: string;
}

/** One route of /v1 or /sandbox, with a request that succeeds for the demo account on a fresh test app. */
export interface ApiRoute {
  method: Method;
  /** Express-style template: `:locationId` and the other keys of RouteIds. */
  path: string;
  query?: string;
  body?: Record<string, unknown>;
  /** The status of that request with the demo key. */
  ok: number;
  /** `account`: the account's API key or access token; `admin`: ADMIN_TOKEN when it is set. */
  guard: 'account' | 'admin';
}

/** A route of /v1 or /sandbox behind `guard`: the status its request answers, and what it sends. */
const behind =
  (guard: ApiRoute['guard']) =>
  (method: Method, path: string, ok: number, sent: Pick<ApiRoute, 'query' | 'body'> = {}): ApiRoute => ({
    method,
    path,
    ok,
    guard,
    ...sent,
  });
const account = behind('account');
const admin = behind('admin');

export const API_ROUTES: ApiRoute[] = [
  account('get', '/v1/locations', 200),
  account('get', '/v1/locations/:locationId', 200),
  account('put', '/v1/locations/:locationId', 200, { body: { homeAway: 'away' } }),
  account('post', '/v1/locations/:locationId/subscriptions', 200, { body: { endpoint: 'https://example.com/hook' } }),
  account('get', '/v1/locations/:locationId/subscriptions', 200),
  account('get', '/v1/subscriptions', 200),
  account('get', '/v1/subscriptions/:subscriptionId', 200),
  account('get', '/v1/subscriptions/:subscriptionId/confirm', 400, { query: 'confirmationToken=none' }),
  account('delete', '/v1/subscriptions/:subscriptionId', 200),
  account('get', '/v1/locations/:locationId/readings/water-usage', 200, { query: 'startTime=2026-03-01T00:00:00Z' }),
  account('get', '/v1/locations/:locationId/readings/water-usage/summary', 200),

  admin('post', '/sandbox/accounts', 201, { body: {} }),
  admin('get', '/sandbox/admin/accounts', 200),
  admin('post', '/sandbox/admin/reset', 200),
  account('post', '/sandbox/reset', 200),
  account('post', '/sandbox/tokens/expire', 200, { body: {} }),
  account('get', '/sandbox/requests', 200),
  account('get', '/sandbox/faults', 200),
  account('post', '/sandbox/faults', 201, { body: { path: '/v1/nothing', status: 503 } }),
  account('delete', '/sandbox/faults', 200),
  account('post', '/sandbox/subscriptions/:subscriptionId/confirmation', 200),
  account('get', '/sandbox/oauth-clients', 200),
  account('post', '/sandbox/oauth-clients', 201, { body: partnerRegistration() }),
  account('delete', '/sandbox/oauth-clients/:clientId', 200),
  account('get', '/sandbox/connected-apps', 200),
  // The demo account's own client is no connected app: a 404 that names the call that deletes it.
  account('delete', '/sandbox/connected-apps/:clientId', 404),
  account('post', '/sandbox/locations/:locationId/alerts', 201, { body: { type: 'highLeak' } }),
  account('get', '/sandbox/locations/:locationId/alerts', 200),
  account('get', '/sandbox/locations/:locationId/alerts/:alertId', 200),
  account('post', '/sandbox/locations/:locationId/alerts/:alertId/end', 200),
  account('get', '/sandbox/deliveries', 200),
  account('get', '/sandbox/deliveries/:deliveryId', 200),
  account('post', '/sandbox/deliveries/:deliveryId/redeliver', 201),
  account('get', '/sandbox/clock', 200),
  account('post', '/sandbox/clock', 200, { body: { advanceSeconds: 60 } }),
  account('get', '/sandbox/scenarios', 200),
  account('get', '/sandbox/scenarios/:scenario', 200),
  account('post', '/sandbox/scenarios/:scenario/runs', 201, { body: { locationId: DEMO_LOCATION_ID } }),
  account('get', '/sandbox/runs', 200),
  account('get', '/sandbox/runs/:runId', 200),
  account('post', '/sandbox/runs/:runId/cancel', 200),
  account('get', '/sandbox/readiness', 200),
  account('post', '/sandbox/readiness/reset', 200),
  // A drill that changes nothing on a fresh app (no alert delivered yet): rate-limit or server-errors would fail the fuzzer's later /v1 calls on purpose.
  account('post', '/sandbox/readiness/drills', 409, { body: { drill: 'duplicate-delivery' } }),
];

/** The routes outside /v1 and /sandbox: the health check, the metrics, the API description and its page, the auth host and the dashboard pages. */
export const OTHER_ROUTES: { method: Method; path: string }[] = [
  { method: 'get', path: '/healthz' },
  { method: 'get', path: '/metrics' },
  { method: 'get', path: '/openapi.json' },
  { method: 'get', path: '/docs' },
  { method: 'get', path: '/docs/init.js' },
  { method: 'get', path: '/docs/assets/:file' },
  { method: 'get', path: '/login' },
  { method: 'post', path: '/login' },
  { method: 'post', path: '/login/consent' },
  { method: 'get', path: '/logout' },
  { method: 'post', path: '/logout' },
  { method: 'post', path: '/oauth2/token' },
  { method: 'post', path: '/oauth2/revoke' },
  { method: 'get', path: '/' },
  { method: 'get', path: '/dashboard/sign-in' },
  { method: 'post', path: '/dashboard/sign-in' },
  { method: 'post', path: '/dashboard/sign-out' },
  { method: 'post', path: '/dashboard/token' },
  { method: 'get', path: '/dashboard/events' },
  { method: 'get', path: '/dashboard/assets/:file' },
  { method: 'get', path: '/dashboard/demo-receiver' },
  { method: 'post', path: '/dashboard/demo-receiver' },
  { method: 'post', path: '/mcp' },
  // The presenter view (signed in like the dashboard) and its audience link (no sign-in).
  { method: 'get', path: '/demo' },
  { method: 'get', path: '/demo/scene' },
  { method: 'get', path: '/demo/events' },
  { method: 'put', path: '/demo/view' },
  { method: 'post', path: '/demo/story' },
  { method: 'post', path: '/demo/story/play' },
  { method: 'post', path: '/demo/story/pause' },
  { method: 'post', path: '/demo/story/tick' },
  { method: 'post', path: '/demo/story/next' },
  { method: 'post', path: '/demo/story/restart' },
  { method: 'put', path: '/demo/story/speed' },
  { method: 'delete', path: '/demo/story' },
  { method: 'get', path: '/demo/links' },
  { method: 'post', path: '/demo/links' },
  { method: 'delete', path: '/demo/links/:linkId' },
  { method: 'get', path: '/demo/watch/:token' },
  { method: 'get', path: '/demo/watch/:token/scene' },
  { method: 'get', path: '/demo/watch/:token/events' },
];

/**
 * The relay's routes (water-sandbox listen): a stream that stays open until the client leaves,
 * and an endpoint that waits for a listener's answer (502 when none is connected). The generic
 * request harnesses (fuzz, percent-encoding, JSON bodies, auth matrix) cannot drive them, so
 * they are listed here for the route coverage check only; test/relay/relay.api.test.ts covers
 * them, authentication and malformed input included.
 */
export const RELAY_ROUTES: { method: Method; path: string }[] = [
  { method: 'post', path: '/sandbox/relays' },
  { method: 'get', path: '/sandbox/relays/:relayId/requests' },
  { method: 'post', path: '/sandbox/relays/:relayId/replies/:requestId' },
  // Mounted at /relay; Express keeps no mount points, so the coverage check sees /:relayId.
  { method: 'get', path: '/:relayId' },
  { method: 'post', path: '/:relayId' },
];

export const routeName = (route: { method: Method; path: string }): string =>
  `${route.method.toUpperCase()} ${route.path}`;

export const fillPath = (template: string, ids: Partial<RouteIds>): string =>
  template.replace(/:(\w+)/g, (_match, key: string) => {
    // A name in the template need not be one of RouteIds, nor given.
    const value = ids[key as keyof RouteIds];
    if (value === undefined) throw new Error(`no id for :${key}`);
    return value;
  });

function dashboardScript(): string {
  const assets = loadDashboardAssets();
  if ('missing' in assets) throw new Error(assets.missing);
  return assets.script;
}

/** A subscription, an active alert, its deliveries, a scenario run and an OAuth client of the demo account, for the templates. */
export async function givenRouteIds(app: Express): Promise<RouteIds> {
  const auth = bearer(DEMO_API_KEY);
  const subscription = await request(app)
    .post(`/v1/locations/${DEMO_LOCATION_ID}/subscriptions`)
    .set(auth)
    .send({ endpoint: 'https://example.com/hook' })
    .expect(200);
  const alert = await request(app)
    .post(`/sandbox/locations/${DEMO_LOCATION_ID}/alerts`)
    .set(auth)
    .send({ type: 'lowLeak' })
    .expect(201);
  const deliveries = await request(app).get('/sandbox/deliveries').set(auth).expect(200);
  const scenario = 'slow-leak-escalates';
  const run = await request(app)
    .post(`/sandbox/scenarios/${scenario}/runs`)
    .set(auth)
    .send({ locationId: DEMO_LOCATION_ID })
    .expect(201);
  const client = await request(app)
    .post('/sandbox/oauth-clients')
    .set(auth)
    .send(partnerRegistration({ clientId: 'route-table-client' }))
    .expect(201);
  return {
    locationId: DEMO_LOCATION_ID,
    subscriptionId: subscription.body.subscriptionId as string,
    alertId: alert.body.alertId as string,
    deliveryId: (deliveries.body.deliveries as { deliveryId: string }[])[0]!.deliveryId,
    runId: run.body.runId as string,
    scenario,
    clientId: client.body.client_id as string,
    file: dashboardScript(),
    linkId: 'not-a-link',
    token: 'not-a-token',
  };
}

/** A fresh test app (buildTestApp with `options`) and the ids of its routes (givenRouteIds). */
export async function appWithRouteIds(
  options?: Parameters<typeof buildTestApp>[0],
): Promise<{ t: TestApp; ids: RouteIds }> {
  const t = await buildTestApp(options);
  return { t, ids: await givenRouteIds(t.app) };
}

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
}

/**
 * Every route path (method and template) registered on the app's routers, mount points not
 * included (Express does not keep them): `GET /locations/:locationId` for the /v1 one. Routes
 * that only answer 405 (registered with `all`) are left out.
 */
export function registeredRoutes(app: Express): string[] {
  const found: string[] = [];
  const walk = (stack: Layer[]): void => {
    for (const layer of stack) {
      if (layer.route) {
        const methods = Object.keys(layer.route.methods).filter((m) => m !== '_all');
        for (const path of [layer.route.path].flat())
          for (const method of methods) found.push(`${method.toUpperCase()} ${path}`);
      } else if (layer.handle.stack) {
        walk(layer.handle.stack);
      }
    }
  };
  walk((app as unknown as { router: Router & { stack: Layer[] } }).router.stack);
  return found;
}
