import type { Express, Router } from 'express';
import request from 'supertest';

import { loadDashboardAssets } from '../../src/dashboard/assets.js';
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

export const API_ROUTES: ApiRoute[] = [
  { method: 'get', path: '/v1/locations', ok: 200, guard: 'account' },
  { method: 'get', path: '/v1/locations/:locationId', ok: 200, guard: 'account' },
  { method: 'put', path: '/v1/locations/:locationId', body: { homeAway: 'away' }, ok: 200, guard: 'account' },
  {
    method: 'post',
    path: '/v1/locations/:locationId/subscriptions',
    body: { endpoint: 'https://example.com/hook' },
    ok: 200,
    guard: 'account',
  },
  { method: 'get', path: '/v1/locations/:locationId/subscriptions', ok: 200, guard: 'account' },
  { method: 'get', path: '/v1/subscriptions', ok: 200, guard: 'account' },
  { method: 'get', path: '/v1/subscriptions/:subscriptionId', ok: 200, guard: 'account' },
  {
    method: 'get',
    path: '/v1/subscriptions/:subscriptionId/confirm',
    query: 'confirmationToken=none',
    ok: 400,
    guard: 'account',
  },
  { method: 'delete', path: '/v1/subscriptions/:subscriptionId', ok: 200, guard: 'account' },
  {
    method: 'get',
    path: '/v1/locations/:locationId/readings/water-usage',
    query: 'startTime=2026-03-01T00:00:00Z',
    ok: 200,
    guard: 'account',
  },
  { method: 'get', path: '/v1/locations/:locationId/readings/water-usage/summary', ok: 200, guard: 'account' },

  { method: 'post', path: '/sandbox/accounts', body: {}, ok: 201, guard: 'admin' },
  { method: 'get', path: '/sandbox/admin/accounts', ok: 200, guard: 'admin' },
  { method: 'post', path: '/sandbox/admin/reset', ok: 200, guard: 'admin' },
  { method: 'post', path: '/sandbox/reset', ok: 200, guard: 'account' },
  { method: 'post', path: '/sandbox/tokens/expire', body: {}, ok: 200, guard: 'account' },
  { method: 'get', path: '/sandbox/requests', ok: 200, guard: 'account' },
  { method: 'get', path: '/sandbox/faults', ok: 200, guard: 'account' },
  { method: 'post', path: '/sandbox/faults', body: { path: '/v1/nothing', status: 503 }, ok: 201, guard: 'account' },
  { method: 'delete', path: '/sandbox/faults', ok: 200, guard: 'account' },
  { method: 'post', path: '/sandbox/subscriptions/:subscriptionId/confirmation', ok: 200, guard: 'account' },
  { method: 'get', path: '/sandbox/oauth-clients', ok: 200, guard: 'account' },
  { method: 'post', path: '/sandbox/oauth-clients', body: partnerRegistration(), ok: 201, guard: 'account' },
  { method: 'delete', path: '/sandbox/oauth-clients/:clientId', ok: 200, guard: 'account' },
  {
    method: 'post',
    path: '/sandbox/locations/:locationId/alerts',
    body: { type: 'highLeak' },
    ok: 201,
    guard: 'account',
  },
  { method: 'get', path: '/sandbox/locations/:locationId/alerts', ok: 200, guard: 'account' },
  { method: 'get', path: '/sandbox/locations/:locationId/alerts/:alertId', ok: 200, guard: 'account' },
  { method: 'post', path: '/sandbox/locations/:locationId/alerts/:alertId/end', ok: 200, guard: 'account' },
  { method: 'get', path: '/sandbox/deliveries', ok: 200, guard: 'account' },
  { method: 'get', path: '/sandbox/deliveries/:deliveryId', ok: 200, guard: 'account' },
  { method: 'post', path: '/sandbox/deliveries/:deliveryId/redeliver', ok: 201, guard: 'account' },
  { method: 'get', path: '/sandbox/clock', ok: 200, guard: 'account' },
  { method: 'post', path: '/sandbox/clock', body: { advanceSeconds: 60 }, ok: 200, guard: 'account' },
  { method: 'get', path: '/sandbox/scenarios', ok: 200, guard: 'account' },
  { method: 'get', path: '/sandbox/scenarios/:scenario', ok: 200, guard: 'account' },
  {
    method: 'post',
    path: '/sandbox/scenarios/:scenario/runs',
    body: { locationId: DEMO_LOCATION_ID },
    ok: 201,
    guard: 'account',
  },
  { method: 'get', path: '/sandbox/runs', ok: 200, guard: 'account' },
  { method: 'get', path: '/sandbox/runs/:runId', ok: 200, guard: 'account' },
  { method: 'post', path: '/sandbox/runs/:runId/cancel', ok: 200, guard: 'account' },
  { method: 'get', path: '/sandbox/readiness', ok: 200, guard: 'account' },
  { method: 'post', path: '/sandbox/readiness/reset', ok: 200, guard: 'account' },
  // A drill that changes nothing on a fresh app (no alert delivered yet): rate-limit or server-errors would fail the fuzzer's later /v1 calls on purpose.
  {
    method: 'post',
    path: '/sandbox/readiness/drills',
    body: { drill: 'duplicate-delivery' },
    ok: 409,
    guard: 'account',
  },
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
  { method: 'post', path: '/oauth2/token' },
  { method: 'get', path: '/' },
  { method: 'get', path: '/dashboard/sign-in' },
  { method: 'post', path: '/dashboard/sign-in' },
  { method: 'post', path: '/dashboard/sign-out' },
  { method: 'post', path: '/dashboard/token' },
  { method: 'get', path: '/dashboard/events' },
  { method: 'get', path: '/dashboard/assets/:file' },
  { method: 'get', path: '/dashboard/demo-receiver' },
  { method: 'post', path: '/dashboard/demo-receiver' },
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

export const fillPath = (template: string, ids: RouteIds): string =>
  template.replace(/:(\w+)/g, (_match, key: string) => {
    // A name in the template need not be one of RouteIds.
    const value = ids[key as keyof RouteIds] as string | undefined;
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
  };
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
