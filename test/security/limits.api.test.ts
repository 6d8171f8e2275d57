import { once } from 'node:events';
import { get, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { DestinationStream } from 'pino';
import request from 'supertest';

import { createLogger } from '../../src/core/logger.js';
import { buildTestApp, docOf, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID, DEMO_LOCATIONS, OTHER_API_KEY } from '../helpers/demo.js';
import { loginAndGetToken, NATIVE_REDIRECT_URI, partnerRegistration } from '../helpers/oauth.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

// A hosted sandbox (its PUBLIC_URL is not loopback) limits what one partner can take: accounts
// created per client address, subscriptions per location, locations per generated account,
// relays open at once, and every collection an account can grow. A local sandbox has generous
// limits. Each refusal is a 409 (429 for rates) naming the setting, and keeps what was stored.

const HOSTED = { PUBLIC_URL: 'https://sandbox.example.com' };

const apps: TestApp[] = [];
async function app(env: Record<string, string>, lines?: string[]): Promise<TestApp> {
  const destination: DestinationStream = { write: (line: string) => void lines?.push(line) };
  const t = await buildTestApp({ env, ...(lines === undefined ? {} : { logger: createLogger('warn', destination) }) });
  apps.push(t);
  return t;
}

afterEach(async () => {
  for (const t of apps.splice(0)) await t.deps.dispatcher.idle();
});

const createAccount = (t: TestApp, body: Record<string, unknown> = {}, from = '203.0.113.10'): request.Test =>
  request(t.app).post('/sandbox/accounts').set('X-Forwarded-For', from).send(body);

const subscribe = (t: TestApp, endpoint: string, locationId = DEMO_LOCATION_ID): request.Test =>
  request(t.app).post(`/v1/locations/${locationId}/subscriptions`).set(bearer(DEMO_API_KEY)).send({ endpoint });

const warnings = (lines: string[]): Record<string, unknown>[] =>
  lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l['msg'] === 'request refused by a limit');

describe('POST /sandbox/accounts without ADMIN_TOKEN on a hosted sandbox', () => {
  it('is limited per client address: the next one is a 429 with Retry-After naming ACCOUNT_CREATION_LIMIT, until the hour is over', async () => {
    const lines: string[] = [];
    // METRICS_OPEN: the operator's view, which a hosted sandbox keeps off without ADMIN_TOKEN.
    const t = await app({ ...HOSTED, ACCOUNT_CREATION_LIMIT: '3', METRICS_OPEN: 'true' }, lines);
    for (let i = 0; i < 3; i++) await createAccount(t).expect(201);
    const refused = await createAccount(t).expect(429);
    expect(refused.body).toEqual({
      error: 'rate_limited',
      message: expect.stringMatching(
        /^Too many accounts created from this address: this sandbox allows 3 an hour \(ACCOUNT_CREATION_LIMIT=3\); try again in \d+ s/,
      ),
    });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    // Another address is not held up by this one.
    await createAccount(t, {}, '203.0.113.11').expect(201);
    // Once Retry-After has passed, the address may create accounts again.
    t.clock.advance(retryAfter * 1000);
    await createAccount(t).expect(201);
    expect(warnings(lines)).toEqual([
      expect.objectContaining({ level: 'warn', limit: 'ACCOUNT_CREATION_LIMIT', status: 429, address: '203.0.113.10' }),
    ]);
    const metrics = (await request(t.app).get('/metrics').expect(200)).text;
    expect(metrics).toContain('sandbox_limited_requests_total{rule="ACCOUNT_CREATION_LIMIT"} 1');
  });

  it('is limited at 20 an hour by default', async () => {
    const t = await app(HOSTED);
    for (let i = 0; i < 20; i++) await createAccount(t).expect(201);
    await createAccount(t).expect(429);
  });

  it('is not limited once ADMIN_TOKEN guards it, nor on a local sandbox', async () => {
    const guarded = await app({ ...HOSTED, ACCOUNT_CREATION_LIMIT: '1', ADMIN_TOKEN: 'operator-token' });
    for (let i = 0; i < 3; i++) await createAccount(guarded).set(bearer('operator-token')).expect(201);
    const local = await app({});
    for (let i = 0; i < 25; i++) await createAccount(local).expect(201);
  });
});

describe('MAX_LOCATIONS_PER_ACCOUNT', () => {
  it('a hosted sandbox makes at most 5 locations per generated account: more is a 409 naming the cap', async () => {
    const t = await app(HOSTED);
    const res = await createAccount(t, { locations: 6 }).expect(409);
    expect(res.body).toEqual({
      error: 'limit_reached',
      parameter: 'locations',
      message: 'locations must be at most 5 on this sandbox (MAX_LOCATIONS_PER_ACCOUNT=5); got 6',
    });
    expect((await createAccount(t, { locations: 5 }).expect(201)).body.locations).toHaveLength(5);
  });

  it('a local sandbox makes up to 10, as before', async () => {
    const t = await app({});
    expect((await createAccount(t, { locations: 10 }).expect(201)).body.locations).toHaveLength(10);
  });
});

describe('MAX_SUBSCRIPTIONS_PER_LOCATION', () => {
  it('a hosted sandbox holds at most 20 subscriptions per location: the next is a 409 naming the cap, nothing is stored', async () => {
    const lines: string[] = [];
    const t = await app(HOSTED, lines);
    const created: string[] = [];
    for (let i = 0; i < 20; i++)
      created.push((await subscribe(t, `https://hooks.example/${i}`).expect(200)).body.subscriptionId as string);
    const refused = await subscribe(t, 'https://hooks.example/20').expect(409);
    expect(refused.body).toEqual({
      error: 'limit_reached',
      message:
        'This location has 20 subscriptions, the most this sandbox allows (MAX_SUBSCRIPTIONS_PER_LOCATION=20); delete one (DELETE /v1/subscriptions/{subscriptionId}) before adding another',
    });
    const listed = await request(t.app)
      .get(`/v1/locations/${DEMO_LOCATION_ID}/subscriptions`)
      .set(bearer(DEMO_API_KEY))
      .expect(200);
    expect(listed.body.total).toBe(20);
    // Subscribing an endpoint again is no new subscription; another location has its own 20; a deleted one makes room.
    await subscribe(t, 'https://hooks.example/3').expect(200);
    await subscribe(t, 'https://hooks.example/20', DEMO_LOCATIONS[1]!.locationId).expect(200);
    await request(t.app).delete(`/v1/subscriptions/${created[0]!}`).set(bearer(DEMO_API_KEY)).expect(200);
    await subscribe(t, 'https://hooks.example/20').expect(200);
    expect(warnings(lines)).toEqual([
      expect.objectContaining({ limit: 'MAX_SUBSCRIPTIONS_PER_LOCATION', status: 409, accountId: expect.any(String) }),
    ]);
    expect(lines.join('\n')).not.toContain(DEMO_API_KEY);
  });

  it('a local sandbox keeps no cap (CI suites hold hundreds on one location)', async () => {
    const t = await app({});
    for (let i = 0; i < 60; i++) await subscribe(t, `https://hooks.example/${i}`).expect(200);
  });
});

describe('MAX_OPEN_RELAYS', () => {
  /** Opens the relay's event stream; resolves once its headers arrive. */
  async function openStream(port: number, relayId: string, relayKey: string): Promise<IncomingMessage> {
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      get(
        {
          host: '127.0.0.1',
          port,
          path: `/sandbox/relays/${relayId}/requests`,
          headers: { ...bearer(DEMO_API_KEY), 'X-Relay-Key': relayKey },
        },
        resolve,
      ).on('error', reject);
    });
    return res;
  }

  it('a hosted sandbox holds at most 5 listen streams of an account open at once: the next is a 409 naming the cap, until one closes', async () => {
    const t = await app(HOSTED);
    const server = t.app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const open: IncomingMessage[] = [];
    try {
      const relay = await request(t.app).post('/sandbox/relays').set(bearer(DEMO_API_KEY)).send({}).expect(200);
      const relayId = relay.body.relayId as string;
      const relayKey = relay.body.relayKey as string;
      for (let i = 0; i < 5; i++) {
        const stream = await openStream(port, relayId, relayKey);
        expect(stream.statusCode).toBe(200);
        open.push(stream);
      }
      const refused = await openStream(port, relayId, relayKey);
      expect(refused.statusCode).toBe(409);
      const body = await new Promise<string>((resolve) => {
        let text = '';
        refused.on('data', (chunk: Buffer) => (text += chunk.toString()));
        refused.on('end', () => resolve(text));
      });
      expect(JSON.parse(body)).toEqual({
        error: 'limit_reached',
        message:
          'This account has 5 water-sandbox listen streams open on this sandbox, the most it allows (MAX_OPEN_RELAYS=5); stop one before starting another',
      });
      // Another account is not held up by this one.
      const other = await request(t.app).post('/sandbox/accounts').send({}).expect(201);
      const otherRelay = await request(t.app)
        .post('/sandbox/relays')
        .set(bearer(other.body.apiKey as string))
        .send({})
        .expect(200);
      const otherStream = await new Promise<IncomingMessage>((resolve, reject) => {
        get(
          {
            host: '127.0.0.1',
            port,
            path: `/sandbox/relays/${otherRelay.body.relayId as string}/requests`,
            headers: { ...bearer(other.body.apiKey as string), 'X-Relay-Key': otherRelay.body.relayKey as string },
          },
          resolve,
        ).on('error', reject);
      });
      expect(otherStream.statusCode).toBe(200);
      open.push(otherStream);
      // Closing one makes room.
      const closed = open.shift()!;
      closed.destroy();
      await new Promise<void>((resolve) => {
        const retry = (): void =>
          void openStream(port, relayId, relayKey).then((stream) => {
            if (stream.statusCode === 200) {
              open.push(stream);
              resolve();
            } else {
              stream.resume();
              setImmediate(retry);
            }
          });
        retry();
      });
      expect(t.deps.relays.openStreams(t.deps.fixtures.accounts[0]!.accountId)).toBe(5);
    } finally {
      for (const stream of open) stream.destroy();
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('global admin operations on a hosted sandbox', () => {
  it('are off without ADMIN_TOKEN (403 saying why), and behind it once set; a local sandbox keeps them open', async () => {
    const hosted = await app(HOSTED);
    const off = await request(hosted.app).get('/sandbox/admin/accounts').expect(403);
    expect(off.body).toEqual({
      error: 'admin_disabled',
      message: expect.stringContaining('has no ADMIN_TOKEN, so its global admin operations are off'),
    });
    await request(hosted.app).post('/sandbox/admin/reset').expect(403);
    const guarded = await app({ ...HOSTED, ADMIN_TOKEN: 'operator-token' });
    await request(guarded.app).get('/sandbox/admin/accounts').set(bearer('operator-token')).expect(200);
    const local = await app({});
    await request(local.app).get('/sandbox/admin/accounts').expect(200);
  });
});

const asDemo = (t: TestApp, method: 'get' | 'post' | 'delete', path: string): request.Test =>
  request(t.app)[method](path).set(bearer(DEMO_API_KEY));
const addFault = (t: TestApp, body: Record<string, unknown>, key = DEMO_API_KEY): request.Test =>
  request(t.app).post('/sandbox/faults').set(bearer(key)).send(body);

describe('ACCOUNT_STORAGE_LIMIT', () => {
  it('a hosted account holds 1 MiB: 90 kB faults are taken until the next would pass it, then 409 naming the setting and the largest part; nothing stored is lost, deleting makes room', async () => {
    const lines: string[] = [];
    const t = await app(HOSTED, lines);
    const body = { blob: 'x'.repeat(90 * 1024) };
    const accepted: string[] = [];
    let refused: request.Response | null = null;
    for (let i = 0; i < 20 && refused === null; i++) {
      const res = await addFault(t, { path: `/v1/nothing/${i}`, status: 500, body });
      if (res.status === 201) accepted.push(res.body.faultId as string);
      else refused = res;
    }
    expect(accepted.length).toBeGreaterThanOrEqual(9);
    expect(refused?.status).toBe(409);
    expect(refused?.body).toEqual({
      error: 'limit_reached',
      message: expect.stringMatching(
        /^This change would make the account's stored data [\d,]+ bytes, more than the 1,048,576 this sandbox keeps per account \(ACCOUNT_STORAGE_LIMIT=1048576\); nothing was changed\. Its largest parts: faults [\d,]+ bytes \(DELETE \/sandbox\/faults\);/,
      ),
    });
    const stored = Buffer.byteLength(JSON.stringify(await docOf(t)));
    expect(stored).toBeLessThanOrEqual(1_048_576);
    // Every fault taken before is there, whole.
    const listed = await asDemo(t, 'get', '/sandbox/faults').expect(200);
    expect(listed.body.faults.map((f: { faultId: string }) => f.faultId)).toEqual(accepted);
    expect(listed.body.faults.every((f: { body: unknown }) => JSON.stringify(f.body) === JSON.stringify(body))).toBe(
      true,
    );
    // The budget is bytes, not a count: a fault that fits in what is left is taken; then any change that grows the account is refused, whatever it stores.
    const room = 1_048_576 - stored;
    await addFault(t, { path: '/v1/nothing/small', status: 500, body: { blob: 'x'.repeat(room - 400) } }).expect(201);
    await request(t.app)
      .post('/sandbox/oauth-clients')
      .set(bearer(DEMO_API_KEY))
      .send(partnerRegistration())
      .expect(409);
    expect(Buffer.byteLength(JSON.stringify(await docOf(t)))).toBeLessThanOrEqual(1_048_576);
    // A change that does not grow it passes.
    await request(t.app)
      .put(`/v1/locations/${DEMO_LOCATION_ID}`)
      .set(bearer(DEMO_API_KEY))
      .send({ homeAway: 'away' })
      .expect(200);
    // Another account is not held up.
    await addFault(t, { path: '/v1/nothing', status: 500, body }, OTHER_API_KEY).expect(201);
    await asDemo(t, 'delete', '/sandbox/faults').expect(200);
    await addFault(t, { path: '/v1/nothing', status: 500, body }).expect(201);
    expect(warnings(lines)).toContainEqual(expect.objectContaining({ limit: 'ACCOUNT_STORAGE_LIMIT', status: 409 }));
  });

  it('a local sandbox keeps 8 MiB per account', async () => {
    const t = await app({});
    const body = { blob: 'x'.repeat(90 * 1024) };
    for (let i = 0; i < 20; i++) await addFault(t, { path: `/v1/nothing/${i}`, status: 500, body }).expect(201);
    expect(t.deps.config.limits.accountBytes).toBe(8 * 1024 * 1024);
  });
});

describe('MAX_FAULTS', () => {
  it('a hosted account queues at most 100 faults: the next is a 409 naming the setting, the queue stays whole, deleting makes room', async () => {
    const t = await app(HOSTED);
    for (let i = 0; i < 100; i++) await addFault(t, { path: `/v1/nothing/${i}`, status: 503 }).expect(201);
    const refused = await addFault(t, { path: '/v1/nothing/100', status: 503 }).expect(409);
    expect(refused.body).toEqual({
      error: 'limit_reached',
      message:
        'This account has 100 faults queued, the most this sandbox allows (MAX_FAULTS=100); delete them (DELETE /sandbox/faults) before queueing another',
    });
    // A readiness drill queues a fault too, and meets the same bound.
    await asDemo(t, 'post', '/sandbox/readiness/drills').send({ drill: 'server-errors' }).expect(409);
    expect((await asDemo(t, 'get', '/sandbox/faults').expect(200)).body.faults).toHaveLength(100);
    await asDemo(t, 'delete', '/sandbox/faults').expect(200);
    await addFault(t, { path: '/v1/nothing/100', status: 503 }).expect(201);
  });

  it('a local sandbox queues more (1000)', async () => {
    const t = await app({});
    for (let i = 0; i < 101; i++) await addFault(t, { path: `/v1/nothing/${i}`, status: 503 }).expect(201);
  });
});

describe('MAX_OAUTH_CLIENTS', () => {
  it('a hosted account registers at most 20 clients: the next is a 409 naming the setting; DELETE /sandbox/oauth-clients/{clientId} takes a client and its tokens away and makes room', async () => {
    const t = await app(HOSTED);
    const register = (clientId: string): request.Test =>
      request(t.app)
        .post('/sandbox/oauth-clients')
        .set(bearer(DEMO_API_KEY))
        .send(partnerRegistration({ clientId, clientSecret: `${clientId}-secret` }));
    for (let i = 0; i < 20; i++) await register(`client-${i}`).expect(201);
    const refused = await register('client-20').expect(409);
    expect(refused.body).toEqual({
      error: 'limit_reached',
      message:
        'This account has 20 OAuth clients registered, the most this sandbox allows (MAX_OAUTH_CLIENTS=20); delete one (DELETE /sandbox/oauth-clients/{clientId}) before registering another',
    });
    expect((await asDemo(t, 'get', '/sandbox/oauth-clients').expect(200)).body.oauthClients).toHaveLength(20);
    const tokens = await loginAndGetToken(t.app, {
      clientId: 'client-3',
      clientSecret: 'client-3-secret',
      redirectUri: NATIVE_REDIRECT_URI,
    });
    await request(t.app).get('/v1/locations').set(bearer(tokens.access_token)).expect(200);

    const deleted = await asDemo(t, 'delete', '/sandbox/oauth-clients/client-3').expect(200);
    expect(deleted.body).toEqual({ clientId: 'client-3', removedTokens: 3 });
    await request(t.app).get('/v1/locations').set(bearer(tokens.access_token)).expect(403);
    await asDemo(t, 'delete', '/sandbox/oauth-clients/client-3').expect(404);
    // A fixture client, or another account's, is not this account's to delete.
    await asDemo(t, 'delete', '/sandbox/oauth-clients/demo-client').expect(404);
    await request(t.app).delete('/sandbox/oauth-clients/client-4').set(bearer(OTHER_API_KEY)).expect(404);
    await register('client-20').expect(201);
    expect((await asDemo(t, 'get', '/sandbox/oauth-clients').expect(200)).body.oauthClients).toHaveLength(20);
  });
});

describe('MAX_RUNNING_RUNS', () => {
  it('a hosted account runs at most 10 scenario runs at once: the next is a 409 naming the setting; cancelling one makes room', async () => {
    const t = await app(HOSTED);
    const start = (): request.Test =>
      asDemo(t, 'post', '/sandbox/scenarios/cold-snap/runs').send({ locationId: DEMO_LOCATION_ID });
    const runIds: string[] = [];
    for (let i = 0; i < 10; i++) runIds.push((await start().expect(201)).body.runId as string);
    const refused = await start().expect(409);
    expect(refused.body).toEqual({
      error: 'limit_reached',
      message:
        'This account has 10 scenario runs running, the most this sandbox allows (MAX_RUNNING_RUNS=10); cancel one (POST /sandbox/runs/{runId}/cancel) or let it finish before starting another',
    });
    const runs = (await asDemo(t, 'get', '/sandbox/runs').expect(200)).body.runs as { runId: string; state: string }[];
    expect(
      runs
        .filter((r) => r.state === 'running')
        .map((r) => r.runId)
        .sort(),
    ).toEqual([...runIds].sort());
    await asDemo(t, 'post', `/sandbox/runs/${runIds[0]!}/cancel`).expect(200);
    await start().expect(201);
  });
});

describe('MAX_PENDING_DELIVERIES', () => {
  let receiver: WebhookReceiver;
  beforeEach(async () => {
    receiver = await WebhookReceiver.start();
    // Every attempt fails, and with the clock frozen no retry falls due: the deliveries stay pending.
    receiver.fallback = { status: 500, body: '{"error":"down"}' };
  });
  afterEach(async () => {
    await receiver.close();
  });

  it('an account holds at most that many deliveries waiting: a call that would queue more is a 409 naming the setting and stores nothing; deleting a subscription cancels its deliveries and makes room', async () => {
    const t = await app({ MAX_PENDING_DELIVERIES: '2' });
    await asDemo(t, 'post', '/sandbox/clock').send({ frozen: true }).expect(200);
    const subscribe = (n: number): request.Test =>
      request(t.app)
        .post(`/v1/locations/${DEMO_LOCATION_ID}/subscriptions`)
        .set(bearer(DEMO_API_KEY))
        .send({ endpoint: `${receiver.url()}?n=${n}` });
    // Each subscription queues its confirmation; it fails and waits for its retry (the GET check after it is tried once, and fails).
    const first = (await subscribe(1).expect(200)).body.subscriptionId as string;
    await t.deps.dispatcher.drain();
    await subscribe(2).expect(200);
    await t.deps.dispatcher.drain();
    const pending = async (): Promise<number> =>
      (await asDemo(t, 'get', '/sandbox/deliveries?state=pending').expect(200)).body.total as number;
    expect(await pending()).toBe(2);

    const refused = await subscribe(3).expect(409);
    expect(refused.body).toEqual({
      error: 'limit_reached',
      message: expect.stringMatching(
        /^This account has 2 webhook deliveries waiting to be sent, and this sandbox keeps at most 2 \(MAX_PENDING_DELIVERIES=2\); nothing was changed\./,
      ),
    });
    const delivery = (await asDemo(t, 'get', '/sandbox/deliveries').expect(200)).body.deliveries[0] as {
      deliveryId: string;
    };
    await asDemo(t, 'post', `/sandbox/deliveries/${delivery.deliveryId}/redeliver`).expect(409);
    expect((await request(t.app).get('/v1/subscriptions').set(bearer(DEMO_API_KEY)).expect(200)).body.total).toBe(2);
    expect(await pending()).toBe(2);

    await request(t.app).delete(`/v1/subscriptions/${first}`).set(bearer(DEMO_API_KEY)).expect(200);
    expect(await pending()).toBe(1);
    await subscribe(3).expect(200);
  });
});
