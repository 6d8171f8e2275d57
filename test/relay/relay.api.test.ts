import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

import type { Express } from 'express';
import request from 'supertest';

import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/core/logger.js';
import { buildDeps } from '../../src/deps.js';
import { relayAwareSender } from '../../src/relay/index.js';
import type { WebhookSender } from '../../src/webhooks/index.js';
import { buildTestApp, shippedFixtures } from '../helpers/build-test-app.js';
import {
  bearer,
  DEMO_ACCOUNT_ID,
  DEMO_API_KEY,
  DEMO_LOCATION_ID,
  OTHER_ACCOUNT_ID,
  OTHER_API_KEY,
  OTHER_LOCATION_ID,
} from '../helpers/demo.js';
import { loopbackOnlySender } from '../helpers/loopback-only-sender.js';
import { attach, detachListeners, openRelay, relayKeyOf } from '../helpers/relay-listener.js';
import { startTestSandbox } from '../helpers/start-sandbox.js';
import { eventually } from '../helpers/waiting.js';

/** The server side of `water-sandbox listen`: /sandbox/relays, the /relay endpoint, the relay-aware sender. */

const servers: Server[] = [];

async function serve(app: Express): Promise<string> {
  const server = createServer(app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  detachListeners();
  await Promise.all(
    servers.splice(0).map((s) => {
      s.closeAllConnections();
      return new Promise((resolve) => s.close(resolve));
    }),
  );
});

describe('POST /sandbox/relays', () => {
  it('opens a new relay each time, its id not made from the account and the name, with a key for its opener only', async () => {
    const t = await buildTestApp();
    const relay = await openRelay(t);
    expect(relay).toEqual({
      relayId: expect.stringMatching(/^default\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}$/),
      name: 'default',
      endpoint: `${t.deps.urls.publicUrl}/relay/${relay.relayId}`,
      relayKey: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/),
    });
    const again = await openRelay(t);
    expect(again.relayId).not.toBe(relay.relayId);
    expect(again.relayKey).not.toBe(relay.relayKey);
    expect((await openRelay(t, DEMO_API_KEY, { name: 'frontend' })).relayId).toMatch(/^frontend\./);
    expect((await openRelay(t, OTHER_API_KEY)).relayId).not.toBe(relay.relayId);
    // It carries a secret: no cache keeps it.
    const res = await request(t.app).post('/sandbox/relays').set(bearer(DEMO_API_KEY)).send({}).expect(200);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('refuses a bad name or an unknown field with 400, and needs credentials', async () => {
    const t = await buildTestApp();
    const bad = await request(t.app)
      .post('/sandbox/relays')
      .set(bearer(DEMO_API_KEY))
      .send({ name: 'Not OK' })
      .expect(400);
    expect(bad.body).toMatchObject({ error: 'invalid_parameter', parameter: 'name' });
    await request(t.app).post('/sandbox/relays').set(bearer(DEMO_API_KEY)).send({ nme: 'x' }).expect(400);
    await request(t.app).post('/sandbox/relays').send({}).expect(401);
  });
});

describe('relays are per account', () => {
  it("another account's key cannot attach to the relay, answer its requests, call its endpoint, or subscribe to it", async () => {
    const t = await buildTestApp();
    const base = await serve(t.app);
    const { relayId, endpoint } = await openRelay(t);

    const stranger = await attach(base, relayId, OTHER_API_KEY);
    expect(stranger.response.status).toBe(404);
    expect(await stranger.response.json()).toMatchObject({ error: 'relay_not_found' });

    const reply = await request(t.app)
      .post(`/sandbox/relays/${relayId}/replies/00000000-0000-4000-8000-000000000000`)
      .set(bearer(OTHER_API_KEY))
      .send({ status: 200 });
    expect(reply.status).toBe(404);
    await request(t.app).post(`/relay/${relayId}`).set(bearer(OTHER_API_KEY)).send({}).expect(404);

    const subscribe = await request(t.app)
      .post(`/v1/locations/${OTHER_LOCATION_ID}/subscriptions`)
      .set(bearer(OTHER_API_KEY))
      .send({ endpoint })
      .expect(400);
    expect(subscribe.body.message).toContain('relay endpoint of another account');
  });

  it("the sender refuses a delivery of one account to another account's relay", async () => {
    const t = await buildTestApp();
    const { relayId, endpoint } = await openRelay(t);
    const inner: WebhookSender = { send: () => Promise.reject(new Error('a relay URL must not go out over HTTP')) };
    const sender = relayAwareSender(t.deps.relays, inner);
    const answer = await sender.send({
      method: 'POST',
      url: endpoint,
      body: {},
      timeoutMs: 1000,
      accountId: OTHER_ACCOUNT_ID,
    });
    expect(answer).toMatchObject({ statusCode: null, error: `relay ${relayId} is not a relay of this account` });
    expect(t.deps.relays.owns(DEMO_ACCOUNT_ID, relayId)).toBe(true);
    expect(t.deps.relays.owns(OTHER_ACCOUNT_ID, relayId)).toBe(false);
    // One character of the signature changed (always to a different one).
    const tampered = `${relayId.slice(0, -1)}${relayId.endsWith('A') ? 'B' : 'A'}`;
    expect(tampered).not.toBe(relayId);
    expect(t.deps.relays.owns(DEMO_ACCOUNT_ID, tampered)).toBe(false);
  });
});

describe('the relay endpoint accepted by every endpoint policy', () => {
  it.each([
    [{ ENDPOINT_POLICY: 'https-only' }],
    [{ ENDPOINT_POLICY: 'https-or-loopback', BLOCK_PRIVATE_ENDPOINTS: 'true' }],
    [{ ENDPOINT_POLICY: 'any', BLOCK_PRIVATE_ENDPOINTS: 'true' }],
  ])('%j', async (env) => {
    const t = await buildTestApp({ env });
    const { endpoint } = await openRelay(t);
    expect(endpoint).toMatch(/^http:\/\/localhost/);
    const response = await request(t.app)
      .post(`/v1/locations/${DEMO_LOCATION_ID}/subscriptions`)
      .set(bearer(DEMO_API_KEY))
      .send({ endpoint })
      .expect(200);
    expect(response.body).toMatchObject({ endpoint, status: 'pending' });
  });
});

describe('a listener attached to the stream', () => {
  it('gets ready, then each webhook with method, headers and body; its answer is the delivery attempt', async () => {
    const t = await buildTestApp({ env: { WEBHOOK_TIMEOUT_MS: '3000' } });
    const base = await serve(t.app);
    const { relayId, endpoint } = await openRelay(t);
    const listener = await attach(base, relayId);
    expect(listener.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(JSON.parse((await listener.next('ready')).data)).toEqual({ relayId, endpoint });

    await request(t.app)
      .post(`/v1/locations/${DEMO_LOCATION_ID}/subscriptions`)
      .set(bearer(DEMO_API_KEY))
      .send({ endpoint })
      .expect(200);
    const forwarded = JSON.parse((await listener.next('request')).data) as {
      requestId: string;
      method: string;
      headers: Record<string, string>;
      body: string;
      timeoutMs: number;
    };
    expect(forwarded).toMatchObject({ method: 'POST', timeoutMs: 3000 });
    expect(forwarded.headers).toMatchObject({
      'Content-Type': 'application/json',
      'X-Sandbox-Attempt': '1',
      'X-Sandbox-Delivery-Id': expect.any(String),
    });
    expect(JSON.parse(forwarded.body)).toEqual({
      confirmationUrl: expect.stringContaining('/confirm?confirmationToken='),
      confirmationToken: expect.any(String),
    });

    await request(t.app)
      .post(`/sandbox/relays/${relayId}/replies/${forwarded.requestId}`)
      .set(bearer(DEMO_API_KEY))
      .set(relayKeyOf(relayId))
      .send({ status: 201, headers: { 'content-type': 'application/json' }, body: '{"ok":1}' })
      .expect(202);
    const delivery = await eventually(async () => {
      const list = (await request(t.app).get('/sandbox/deliveries?kind=confirmation').set(bearer(DEMO_API_KEY)))
        .body as { deliveries: { state: string; attempts: object[] }[] };
      return list.deliveries.find((d) => d.state !== 'pending') ?? null;
    });
    expect(delivery).toMatchObject({
      state: 'delivered',
      attempts: [expect.objectContaining({ statusCode: 201, responseExcerpt: '{"ok":1}', error: null })],
    });

    // The receiver check is a GET, forwarded the same way; an error answer is recorded as the attempt's error.
    const check = JSON.parse((await listener.next('request')).data) as {
      requestId: string;
      method: string;
      body: string | null;
    };
    expect(check).toMatchObject({ method: 'GET', body: null });
    await request(t.app)
      .post(`/sandbox/relays/${relayId}/replies/${check.requestId}`)
      .set(bearer(DEMO_API_KEY))
      .set(relayKeyOf(relayId))
      .send({ error: 'http://localhost:3000/hooks: ECONNREFUSED' })
      .expect(202);
    const failed = await eventually(async () => {
      const list = (await request(t.app).get('/sandbox/deliveries?kind=receiver_check').set(bearer(DEMO_API_KEY)))
        .body as { deliveries: { state: string; attempts: object[] }[] };
      return list.deliveries.find((d) => d.state !== 'pending') ?? null;
    });
    expect(failed.attempts).toEqual([
      expect.objectContaining({ statusCode: null, error: 'http://localhost:3000/hooks: ECONNREFUSED' }),
    ]);
  });

  it('a reply that is not an answer is a 400', async () => {
    const t = await buildTestApp();
    const { relayId } = await openRelay(t);
    const path = `/sandbox/relays/${relayId}/replies/00000000-0000-4000-8000-000000000000`;
    const owner = { ...bearer(DEMO_API_KEY), ...relayKeyOf(relayId) };
    await request(t.app).post(path).set(owner).send({ status: 42 }).expect(400);
    await request(t.app).post(path).set(owner).send({ status: 200, error: 'both' }).expect(400);
    await request(t.app)
      .post(`/sandbox/relays/${relayId}/replies/nope`)
      .set(bearer(DEMO_API_KEY))
      .set(relayKeyOf(relayId))
      .send({ status: 200 })
      .expect(400);
  });

  it("the listener's plumbing stays out of the account's request journal", async () => {
    const t = await buildTestApp();
    const { relayId } = await openRelay(t);
    await request(t.app)
      .post(`/sandbox/relays/${relayId}/replies/00000000-0000-4000-8000-000000000000`)
      .set(bearer(DEMO_API_KEY))
      .set(relayKeyOf(relayId))
      .send({ status: 200 })
      .expect(202);
    await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(200);
    const journal = await eventually(async () => {
      const entries = (
        (await request(t.app).get('/sandbox/requests').set(bearer(DEMO_API_KEY))).body as {
          requests: { path: string }[];
        }
      ).requests;
      return entries.length > 0 ? entries : null;
    });
    expect(journal.map((e) => e.path)).toEqual(['/v1/locations']);
  });
});

describe('GET|POST /relay/{relayId} over HTTP', () => {
  it("forwards a call made with the owner's credentials (without them) and answers with the listener's answer", async () => {
    const t = await buildTestApp();
    const base = await serve(t.app);
    const { relayId } = await openRelay(t);
    const listener = await attach(base, relayId);
    await listener.next('ready');

    const call = fetch(`${base}/relay/${relayId}`, {
      method: 'POST',
      headers: { ...bearer(DEMO_API_KEY), ...relayKeyOf(relayId), 'content-type': 'application/json', 'x-test': 'yes' },
      body: '{"hello":"world"}',
    });
    const forwarded = JSON.parse((await listener.next('request')).data) as {
      requestId: string;
      headers: Record<string, string>;
      body: string;
    };
    expect(forwarded.headers['x-test']).toBe('yes');
    expect(forwarded.headers['authorization']).toBeUndefined();
    expect(forwarded.headers['x-relay-key']).toBeUndefined();
    expect(JSON.parse(forwarded.body)).toEqual({ hello: 'world' });
    await request(t.app)
      .post(`/sandbox/relays/${relayId}/replies/${forwarded.requestId}`)
      .set(bearer(DEMO_API_KEY))
      .set(relayKeyOf(relayId))
      .send({ status: 418, headers: { 'Content-Type': 'application/json' }, body: '{"teapot":true}' })
      .expect(202);
    const answer = await call;
    expect(answer.status).toBe(418);
    expect(await answer.json()).toEqual({ teapot: true });
  });

  it('without credentials is a 401; with nobody listening a 502 relay_not_connected that says what to run', async () => {
    const t = await buildTestApp();
    const { relayId } = await openRelay(t);
    await request(t.app).post(`/relay/${relayId}`).send({}).expect(401);
    const response = await request(t.app)
      .get(`/relay/${relayId}`)
      .set(bearer(DEMO_API_KEY))
      .set(relayKeyOf(relayId))
      .expect(502);
    expect(response.body).toEqual({
      error: 'relay_not_connected',
      message: expect.stringContaining('water-sandbox listen --forward-to'),
    });
    await request(t.app)
      .put(`/relay/${relayId}`)
      .set(bearer(DEMO_API_KEY))
      .set(relayKeyOf(relayId))
      .send({})
      .expect(405);
  });
});

describe('replicas', () => {
  it('the stream on one replica, the dispatcher on another, the answer through a third: the delivery gets the answer', async () => {
    const holder = await buildTestApp();
    const { fixtures } = await shippedFixtures();
    // Two more replicas of one sandbox: their own dependencies (hub, dispatcher, sender) on the same store.
    const replica = async (): Promise<Express> =>
      createApp(
        await buildDeps(loadConfig({ DATA_DIR: ':memory:', LOG_LEVEL: 'silent' }), holder.store, fixtures, {
          clock: holder.clock,
          logger: silentLogger,
          sender: loopbackOnlySender,
        }),
      );
    const [dispatching, answering] = [await replica(), await replica()];
    const { relayId, endpoint } = await openRelay(holder);
    const listener = await attach(await serve(holder.app), relayId);
    await listener.next('ready');

    await request(dispatching)
      .post(`/v1/locations/${DEMO_LOCATION_ID}/subscriptions`)
      .set(bearer(DEMO_API_KEY))
      .send({ endpoint })
      .expect(200);
    const forwarded = JSON.parse((await listener.next('request')).data) as { requestId: string };
    await request(answering)
      .post(`/sandbox/relays/${relayId}/replies/${forwarded.requestId}`)
      .set(bearer(DEMO_API_KEY))
      .set(relayKeyOf(relayId))
      .send({ status: 204 })
      .expect(202);
    const delivery = await eventually(async () => {
      const list = (await request(dispatching).get('/sandbox/deliveries?kind=confirmation').set(bearer(DEMO_API_KEY)))
        .body as { deliveries: { state: string; attempts: object[] }[] };
      return list.deliveries.find((d) => d.state !== 'pending') ?? null;
    });
    expect(delivery).toMatchObject({ state: 'delivered', attempts: [expect.objectContaining({ statusCode: 204 })] });
  });
});

describe('shutdown', () => {
  it('ends open listener streams, so stopping does not wait out the grace period', async () => {
    const sandbox = await startTestSandbox();
    const relay = (await (
      await fetch(`${sandbox.url}/sandbox/relays`, { method: 'POST', headers: bearer(DEMO_API_KEY) })
    ).json()) as { relayId: string; relayKey: string };
    const listener = await attach(sandbox.url, relay.relayId, DEMO_API_KEY, { 'X-Relay-Key': relay.relayKey });
    await listener.next('ready');
    const started = performance.now();
    await sandbox.stop();
    expect(performance.now() - started).toBeLessThan(5000);
    // The stream ended (the reader returns) rather than being cut.
    await expect(listener.ended).resolves.toBeUndefined();
  });
});

describe('malformed input on the relay routes', () => {
  it.each([
    ['GET', '/sandbox/relays/%E0%A4%A/requests'],
    ['POST', '/sandbox/relays/default.x/replies/%zz'],
    ['GET', '/relay/%FF'],
  ])('%s %s is a 400 invalid_percent_encoding', async (method, path) => {
    const t = await buildTestApp();
    const response = await request(t.app)[method === 'GET' ? 'get' : 'post'](path).set(bearer(DEMO_API_KEY));
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_percent_encoding');
  });

  it('a reply that is not JSON is a 415, broken JSON a 400; an unknown relay id a 404 before anything is read', async () => {
    const t = await buildTestApp();
    const { relayId } = await openRelay(t);
    const path = `/sandbox/relays/${relayId}/replies/00000000-0000-4000-8000-000000000000`;
    const owner = { ...bearer(DEMO_API_KEY), ...relayKeyOf(relayId) };
    await request(t.app).post(path).set(owner).set('content-type', 'text/plain').send('200').expect(415);
    await request(t.app).post(path).set(owner).set('content-type', 'application/json').send('{"status":').expect(400);
    await request(t.app).get('/sandbox/relays/garbage/requests').set(bearer(DEMO_API_KEY)).expect(404);
    await request(t.app).get('/relay/garbage').set(bearer(DEMO_API_KEY)).expect(404);
  });
});
