import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import request from 'supertest';

import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { signInToDashboard } from '../helpers/dashboard-sign-in.js';
import { bearer, DEMO_API_KEY, DEMO_CLIENT, DEMO_LOCATION_ID } from '../helpers/demo.js';
import { unescapeHtml } from '../helpers/html.js';
import { basicAuth, codeOf, NATIVE_REDIRECT_URI, partnerRegistration, submitLogin } from '../helpers/oauth.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * What every answer says to caches and browsers: `Cache-Control: no-store` on each answer that
 * carries a secret (API key, password, client secret, tokens, a confirmation token, an
 * authorization code in a redirect), and `X-Content-Type-Options: nosniff` on every answer,
 * whatever route, status or content type.
 */

interface Seen {
  status: number;
  headers: Record<string, string | string[] | undefined>;
}

let t: TestApp;
let server: Server;
let base: string;
let receiver: WebhookReceiver;

beforeAll(async () => {
  t = await buildTestApp();
  server = createServer(t.app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver = await WebhookReceiver.start();
});

afterAll(async () => {
  await t.deps.dispatcher.idle();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await receiver.close();
});

/** The status and headers of a streaming answer (server-sent events), then the stream is left. */
async function streamHeaders(path: string, headers: Record<string, string>): Promise<Seen> {
  const abort = new AbortController();
  const res = await fetch(`${base}${path}`, {
    headers: { ...headers, accept: 'text/event-stream' },
    signal: abort.signal,
  });
  abort.abort();
  return { status: res.status, headers: Object.fromEntries(res.headers) };
}

const dashboardToken = async (): Promise<Seen> => {
  const { cookie, page } = await signInToDashboard(base);
  const csrf = unescapeHtml(
    /"csrfToken":"([^"]+)"/.exec(page)?.[1] ?? /name="csrf_token" value="([^"]+)"/.exec(page)?.[1] ?? '',
  );
  const res = await fetch(`${base}/dashboard/token`, { method: 'POST', headers: { cookie, 'x-csrf-token': csrf } });
  return { status: res.status, headers: Object.fromEntries(res.headers) };
};

let endpoints = 0;
/** A pending subscription made as a partner makes one: its confirmation is sent. */
const subscribe = async (): Promise<string> => {
  const created = await request(t.app)
    .post(`/v1/locations/${DEMO_LOCATION_ID}/subscriptions`)
    .set(bearer(DEMO_API_KEY))
    .send({ endpoint: receiver.url(`/hook-${++endpoints}`) })
    .expect(200);
  return created.body.subscriptionId as string;
};

const confirmationDelivery = async (): Promise<string> => {
  const subscriptionId = await subscribe();
  await t.deps.dispatcher.drain();
  const listed = await request(t.app)
    .get(`/sandbox/deliveries?subscriptionId=${subscriptionId}&kind=confirmation`)
    .set(bearer(DEMO_API_KEY))
    .expect(200);
  return listed.body.deliveries[0].deliveryId as string;
};

/** A request with the demo account's API key. */
const asDemo = (method: 'get' | 'post', path: string): request.Test =>
  request(t.app)[method](path).set(bearer(DEMO_API_KEY));

/** Each answer that carries a secret, how to get it, and its status. */
const SECRETS: [what: string, status: number, get: () => Promise<Seen>][] = [
  ['POST /sandbox/accounts: an API key and a password', 201, () => request(t.app).post('/sandbox/accounts')],
  [
    'POST /sandbox/oauth-clients: a client secret',
    201,
    () => asDemo('post', '/sandbox/oauth-clients').send(partnerRegistration()),
  ],
  ["GET /sandbox/oauth-clients: the clients' secrets", 200, () => asDemo('get', '/sandbox/oauth-clients')],
  [
    'POST /login: an authorization code in the redirect',
    302,
    () => submitLogin(request.agent(t.app), { redirectUri: NATIVE_REDIRECT_URI }),
  ],
  [
    'GET /login signed in already: a code in the redirect',
    302,
    async () => {
      const agent = request.agent(t.app);
      await submitLogin(agent, { redirectUri: NATIVE_REDIRECT_URI });
      return submitLogin(agent, { redirectUri: NATIVE_REDIRECT_URI });
    },
  ],
  [
    "GET /login: the form's CSRF token",
    200,
    () =>
      request(t.app).get(
        `/login?response_type=code&client_id=${DEMO_CLIENT.clientId}&redirect_uri=${encodeURIComponent(NATIVE_REDIRECT_URI)}`,
      ),
  ],
  [
    'POST /oauth2/token: access and refresh tokens',
    200,
    async () => {
      const code = codeOf(await submitLogin(request.agent(t.app), { redirectUri: NATIVE_REDIRECT_URI }));
      return request(t.app)
        .post('/oauth2/token')
        .set('Authorization', basicAuth(DEMO_CLIENT.clientId, DEMO_CLIENT.clientSecret))
        .type('form')
        .send({ grant_type: 'authorization_code', code, redirect_uri: NATIVE_REDIRECT_URI });
    },
  ],
  [
    'POST /sandbox/subscriptions/{id}/confirmation: a confirmation token',
    200,
    async () => asDemo('post', `/sandbox/subscriptions/${await subscribe()}/confirmation`),
  ],
  ['GET /sandbox/deliveries: confirmation tokens, token responses', 200, () => asDemo('get', '/sandbox/deliveries')],
  [
    'GET /sandbox/deliveries/{id}',
    200,
    async () => asDemo('get', `/sandbox/deliveries/${await confirmationDelivery()}`),
  ],
  [
    'POST /sandbox/deliveries/{id}/redeliver',
    201,
    async () => asDemo('post', `/sandbox/deliveries/${await confirmationDelivery()}/redeliver`),
  ],
  ['GET /sandbox/requests: queries with confirmation tokens', 200, () => asDemo('get', '/sandbox/requests')],
  [
    'GET /sandbox/relays/{id}/requests: relayed webhooks',
    200,
    async () => {
      const relay = await asDemo('post', '/sandbox/relays').send({}).expect(200);
      return streamHeaders(`/sandbox/relays/${relay.body.relayId as string}/requests`, {
        ...bearer(DEMO_API_KEY),
        'X-Relay-Key': relay.body.relayKey as string,
      });
    },
  ],
  [
    "GET /: the signed-in dashboard's page",
    200,
    async () => {
      const { cookie } = await signInToDashboard(base);
      return request(t.app).get('/').set('Cookie', cookie);
    },
  ],
  ['POST /dashboard/token: an access token', 200, dashboardToken],
];

describe('Cache-Control: no-store on every answer that carries a secret', () => {
  it.each(SECRETS)('%s', async (_what, status, get) => {
    const seen = await get();
    expect({ status: seen.status, cacheControl: seen.headers['cache-control'] }).toEqual({
      status,
      cacheControl: expect.stringMatching(/^no-store\b/),
    });
  });

  it("an error of such a route is not stored either (a refused token request, a registration's 400)", async () => {
    const refused = await request(t.app)
      .post('/oauth2/token')
      .type('form')
      .send({ grant_type: 'authorization_code', code: 'nope', redirect_uri: NATIVE_REDIRECT_URI });
    expect(refused.status).toBe(401);
    expect(refused.headers['cache-control']).toBe('no-store');
    const invalid = await request(t.app).post('/sandbox/oauth-clients').set(bearer(DEMO_API_KEY)).send({});
    expect(invalid.status).toBe(400);
    expect(invalid.headers['cache-control']).toBe('no-store');
  });

  it('the API description says so for each of them', async () => {
    const document = (await request(t.app).get('/openapi.json').expect(200)).body as {
      paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>;
    };
    const documented = (path: string, method: string, status: string): unknown =>
      document.paths[path]?.[method]?.responses[status]?.headers?.['Cache-Control'];
    expect(documented('/sandbox/accounts', 'post', '201')).toMatchObject({
      required: true,
      description: expect.stringMatching(/^no-store: the answer carries the account's API key/),
    });
    expect(documented('/sandbox/subscriptions/{subscriptionId}/confirmation', 'post', '200')).toMatchObject({
      required: true,
    });
    expect(documented('/sandbox/deliveries', 'get', '200')).toMatchObject({ required: true });
    expect(documented('/v1/locations', 'get', '200')).toBeUndefined();
  });
});

/** A sample of every kind of answer: JSON, HTML, text, scripts, streams, redirects, errors of each layer. */
const KINDS: [what: string, status: number, get: () => Promise<Seen>][] = [
  ['a /v1 answer', 200, () => request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY))],
  ['a /v1 401', 401, () => request(t.app).get('/v1/locations')],
  ['a /v1 404 of an unknown location', 404, () => request(t.app).get('/v1/locations/nope').set(bearer(DEMO_API_KEY))],
  ['a 404 of an unknown path', 404, () => request(t.app).get('/no/such/path')],
  ['a 405', 405, () => request(t.app).delete('/v1/locations').set(bearer(DEMO_API_KEY))],
  [
    'a 400 of malformed JSON',
    400,
    () => request(t.app).post('/sandbox/faults').set(bearer(DEMO_API_KEY)).type('json').send('{"status":'),
  ],
  ['a 400 of malformed percent-encoding', 400, () => request(t.app).get('/v1/locations/%zz').set(bearer(DEMO_API_KEY))],
  [
    'a 413 of a body too large',
    413,
    () =>
      request(t.app)
        .post('/sandbox/faults')
        .set(bearer(DEMO_API_KEY))
        .type('json')
        .send(JSON.stringify({ body: 'x'.repeat(200_000) })),
  ],
  [
    'a 415',
    415,
    () =>
      request(t.app)
        .post(`/v1/locations/${DEMO_LOCATION_ID}/subscriptions`)
        .set(bearer(DEMO_API_KEY))
        .type('text')
        .send('hello'),
  ],
  ['a /sandbox answer', 200, () => request(t.app).get('/sandbox/clock').set(bearer(DEMO_API_KEY))],
  ['the health check', 200, () => request(t.app).get('/healthz')],
  ['the metrics (text)', 200, () => request(t.app).get('/metrics')],
  ['the API description', 200, () => request(t.app).get('/openapi.json')],
  ['the API reference (HTML)', 200, () => request(t.app).get('/docs')],
  ['its script', 200, () => request(t.app).get('/docs/init.js')],
  ['the sign-in page (HTML)', 200, () => request(t.app).get('/')],
  ['an error page of /login (HTML)', 400, () => request(t.app).get('/login?response_type=code&client_id=nobody')],
  [
    'a token error (RFC 6749 body)',
    400,
    () =>
      request(t.app)
        .post('/oauth2/token')
        .set('Authorization', basicAuth(DEMO_CLIENT.clientId, DEMO_CLIENT.clientSecret))
        .type('form')
        .send({ grant_type: 'password' }),
  ],
  ['a redirect', 302, () => submitLogin(request.agent(t.app), { redirectUri: NATIVE_REDIRECT_URI })],
  ['the dashboard events without a session', 401, () => streamHeaders('/dashboard/events', {})],
  [
    'a relay stream',
    200,
    async () => {
      const relay = await request(t.app)
        .post('/sandbox/relays')
        .set(bearer(DEMO_API_KEY))
        .send({ name: 'nosniff' })
        .expect(200);
      return streamHeaders(`/sandbox/relays/${relay.body.relayId as string}/requests`, {
        ...bearer(DEMO_API_KEY),
        'X-Relay-Key': relay.body.relayKey as string,
      });
    },
  ],
  ['the demo receiver', 200, () => request(t.app).post('/dashboard/demo-receiver').send({})],
];

describe('X-Content-Type-Options: nosniff on every answer', () => {
  it.each(KINDS)('%s', async (_what, status, get) => {
    const seen = await get();
    expect({ status: seen.status, nosniff: seen.headers['x-content-type-options'] }).toEqual({
      status,
      nosniff: 'nosniff',
    });
  });

  it('a dashboard asset too', async () => {
    const { page } = await signInToDashboard(base);
    const asset = /src="(\/dashboard\/assets\/[^"]+)"/.exec(page)![1]!;
    const res = await request(t.app).get(asset).expect(200);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});
