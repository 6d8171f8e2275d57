import { once } from 'node:events';
import { get, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { DestinationStream } from 'pino';
import request from 'supertest';

import { createLogger } from '../../src/core/logger.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID, DEMO_LOCATIONS } from '../helpers/demo.js';

// A hosted sandbox (its PUBLIC_URL is not loopback) limits what one partner can take: accounts
// created per client address, subscriptions per location, locations per generated account and
// relays open at once. A local sandbox keeps today's freedom.

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

const warnings = (lines: string[]): Record<string, unknown>[] => lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l['msg'] === 'request refused by a limit');

describe('POST /sandbox/accounts without ADMIN_TOKEN on a hosted sandbox', () => {
  it('is limited per client address: the next one is a 429 with Retry-After naming ACCOUNT_CREATION_LIMIT, until the hour is over', async () => {
    const lines: string[] = [];
    const t = await app({ ...HOSTED, ACCOUNT_CREATION_LIMIT: '3' }, lines);
    for (let i = 0; i < 3; i++) await createAccount(t).expect(201);
    const refused = await createAccount(t).expect(429);
    expect(refused.body).toEqual({
      error: 'rate_limited',
      message: expect.stringMatching(/^Too many accounts created from this address: this sandbox allows 3 an hour \(ACCOUNT_CREATION_LIMIT=3\); try again in \d+ s/),
    });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    // Another address is not held up by this one.
    await createAccount(t, {}, '203.0.113.11').expect(201);
    // Once Retry-After has passed, the address may create accounts again.
    t.clock.advance(retryAfter * 1000);
    await createAccount(t).expect(201);
    expect(warnings(lines)).toEqual([expect.objectContaining({ level: 'warn', limit: 'ACCOUNT_CREATION_LIMIT', status: 429, address: '203.0.113.10' })]);
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
    expect(res.body).toEqual({ error: 'limit_reached', parameter: 'locations', message: 'locations must be at most 5 on this sandbox (MAX_LOCATIONS_PER_ACCOUNT=5); got 6' });
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
    for (let i = 0; i < 20; i++) created.push((await subscribe(t, `https://hooks.example/${i}`).expect(200)).body.subscriptionId as string);
    const refused = await subscribe(t, 'https://hooks.example/20').expect(409);
    expect(refused.body).toEqual({
      error: 'limit_reached',
      message: 'This location has 20 subscriptions, the most this sandbox allows (MAX_SUBSCRIPTIONS_PER_LOCATION=20); delete one (DELETE /v1/subscriptions/{subscriptionId}) before adding another',
    });
    const listed = await request(t.app).get(`/v1/locations/${DEMO_LOCATION_ID}/subscriptions`).set(bearer(DEMO_API_KEY)).expect(200);
    expect(listed.body.total).toBe(20);
    // Subscribing an endpoint again is no new subscription; another location has its own 20; a deleted one makes room.
    await subscribe(t, 'https://hooks.example/3').expect(200);
    await subscribe(t, 'https://hooks.example/20', DEMO_LOCATIONS[1]!.locationId).expect(200);
    await request(t.app).delete(`/v1/subscriptions/${created[0]}`).set(bearer(DEMO_API_KEY)).expect(200);
    await subscribe(t, 'https://hooks.example/20').expect(200);
    expect(warnings(lines)).toEqual([expect.objectContaining({ limit: 'MAX_SUBSCRIPTIONS_PER_LOCATION', status: 409, accountId: expect.any(String) })]);
    expect(lines.join('\n')).not.toContain(DEMO_API_KEY);
  });

  it('a local sandbox keeps no cap (CI suites hold hundreds on one location)', async () => {
    const t = await app({});
    for (let i = 0; i < 60; i++) await subscribe(t, `https://hooks.example/${i}`).expect(200);
  });
});

describe('MAX_OPEN_RELAYS', () => {
  /** Opens the relay's event stream; resolves once its headers arrive. */
  async function openStream(port: number, relayId: string): Promise<IncomingMessage> {
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      get({ host: '127.0.0.1', port, path: `/sandbox/relays/${relayId}/requests`, headers: bearer(DEMO_API_KEY) }, resolve).on('error', reject);
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
      for (let i = 0; i < 5; i++) {
        const stream = await openStream(port, relayId);
        expect(stream.statusCode).toBe(200);
        open.push(stream);
      }
      const refused = await openStream(port, relayId);
      expect(refused.statusCode).toBe(409);
      const body = await new Promise<string>((resolve) => {
        let text = '';
        refused.on('data', (chunk: Buffer) => (text += chunk.toString()));
        refused.on('end', () => resolve(text));
      });
      expect(JSON.parse(body)).toEqual({
        error: 'limit_reached',
        message: 'This account has 5 water-sandbox listen streams open on this sandbox, the most it allows (MAX_OPEN_RELAYS=5); stop one before starting another',
      });
      // Another account is not held up by this one.
      const other = await request(t.app).post('/sandbox/accounts').send({}).expect(201);
      const otherRelay = await request(t.app).post('/sandbox/relays').set(bearer(other.body.apiKey as string)).send({}).expect(200);
      const otherStream = await new Promise<IncomingMessage>((resolve, reject) => {
        get({ host: '127.0.0.1', port, path: `/sandbox/relays/${otherRelay.body.relayId as string}/requests`, headers: bearer(other.body.apiKey as string) }, resolve).on('error', reject);
      });
      expect(otherStream.statusCode).toBe(200);
      open.push(otherStream);
      // Closing one makes room.
      const closed = open.shift()!;
      closed.destroy();
      await new Promise<void>((resolve) => {
        const retry = (): void =>
          void openStream(port, relayId).then((stream) => {
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
    expect(off.body).toEqual({ error: 'admin_disabled', message: expect.stringContaining('has no ADMIN_TOKEN, so its global admin operations are off') });
    await request(hosted.app).post('/sandbox/admin/reset').expect(403);
    const guarded = await app({ ...HOSTED, ADMIN_TOKEN: 'operator-token' });
    await request(guarded.app).get('/sandbox/admin/accounts').set(bearer('operator-token')).expect(200);
    const local = await app({});
    await request(local.app).get('/sandbox/admin/accounts').expect(200);
  });
});
