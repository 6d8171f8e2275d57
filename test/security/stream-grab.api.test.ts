import { once } from 'node:events';
import { Agent, get, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import request from 'supertest';

import { DASHBOARD_PATHS } from '../../src/dashboard/page-config.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { signInToDashboard } from '../helpers/dashboard-sign-in.js';
import { bearer } from '../helpers/demo.js';
import { eventually } from '../helpers/waiting.js';

// Issue 40, item 3: MAX_OPEN_STREAMS_TOTAL (500 on a hosted replica) was first come, first
// served; each account may hold 10 dashboard streams and 5 relay streams, so 34 free accounts
// held all 500 and a partner's `listen` and dashboard got 409. Reproduced with the hosted
// defaults, real streams on loopback: the partner's first streams now find a place, taken from
// the biggest holders, whose streams cannot come back while they hold more than their share.

const HOSTED = { PUBLIC_URL: 'https://sandbox.example.com' };
const GRABBERS = 34;

let t: TestApp;
let server: Server;
let base: string;
// One socket per stream, none reused or pooled.
const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
const opened: IncomingMessage[] = [];

beforeEach(async () => {
  t = await buildTestApp({ env: HOSTED });
  server = t.app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  for (const res of opened.splice(0)) res.destroy();
  t.deps.liveStreams.closeAll();
  t.deps.relays.closeAll();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await t.deps.dispatcher.idle();
});

/** Opens an event stream; resolves with the response once its status arrived (its body is read and dropped). */
function openStream(path: string, headers: Record<string, string>): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    get(`${base}${path}`, { agent, headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      opened.push(res);
      res.resume();
      resolve(res);
    }).on('error', reject);
  });
}

interface Account {
  accountId: string;
  apiKey: string;
  user: { email: string; password: string };
}

async function createAccount(from: string): Promise<Account> {
  const res = await request(t.app).post('/sandbox/accounts').set('X-Forwarded-For', from).send({}).expect(201);
  return res.body as Account;
}

/** Every stream an account may hold: its dashboard's 10 (one signed-in session) and 5 relays. */
async function grabAll(account: Account): Promise<number[]> {
  const { cookie } = await signInToDashboard(base, account.user);
  const statuses: number[] = [];
  for (let i = 0; i < 10; i++) statuses.push((await openStream(DASHBOARD_PATHS.events, { cookie })).statusCode!);
  for (let i = 0; i < 5; i++) {
    const relay = await request(t.app).post('/sandbox/relays').set(bearer(account.apiKey)).send({}).expect(200);
    const stream = await openStream(`/sandbox/relays/${relay.body.relayId as string}/requests`, {
      ...bearer(account.apiKey),
      'X-Relay-Key': relay.body.relayKey as string,
    });
    statuses.push(stream.statusCode!);
  }
  return statuses;
}

it("34 free accounts holding every stream of a hosted replica cannot keep a partner's listen and dashboard out", async () => {
  const limits = t.deps.config.limits;
  expect([limits.openStreamsTotal, limits.openStreams, limits.openRelays]).toEqual([500, 10, 5]);

  // The grab: 34 accounts (20 an hour per address: from two addresses), every stream each may hold.
  const grabbers: Account[] = [];
  for (let i = 0; i < GRABBERS; i++) grabbers.push(await createAccount(`203.0.113.${1 + (i % 2)}`));
  for (const grabber of grabbers) await grabAll(grabber);
  expect(t.deps.streamSlots.open).toBe(500);

  // The partner's listen (a relay stream) and dashboard find places.
  const partner = await createAccount('198.51.100.7');
  const relay = await request(t.app).post('/sandbox/relays').set(bearer(partner.apiKey)).send({}).expect(200);
  const listen = await openStream(`/sandbox/relays/${relay.body.relayId as string}/requests`, {
    ...bearer(partner.apiKey),
    'X-Relay-Key': relay.body.relayKey as string,
  });
  expect(listen.statusCode).toBe(200);
  const { cookie } = await signInToDashboard(base, partner.user);
  const dashboard = await openStream(DASHBOARD_PATHS.events, { cookie });
  expect(dashboard.statusCode).toBe(200);
  expect(t.deps.streamSlots.open).toBe(500);
  expect(t.deps.streamSlots.heldBy(partner.accountId)).toBe(2);

  // The grabbers try to take them back: each of them still holds far more, so every try is refused.
  const retries = await Promise.all(grabbers.slice(0, 5).map((g) => grabAll(g)));
  expect(retries.flat().every((status) => status === 409)).toBe(true);
  expect(t.deps.streamSlots.heldBy(partner.accountId)).toBe(2);
  expect(listen.destroyed || dashboard.destroyed).toBe(false);

  // And the partner's streams are live: a request comes down its relay, and its answer goes back.
  let seen = '';
  listen.on('data', (chunk: Buffer) => (seen += chunk.toString('utf8')));
  const owner = { ...bearer(partner.apiKey), 'X-Relay-Key': relay.body.relayKey as string };
  const call = fetch(`${base}/relay/${relay.body.relayId as string}`, {
    method: 'POST',
    headers: { ...owner, 'content-type': 'application/json' },
    body: '{"ping":true}',
  });
  const requestId = await eventually(() => /"requestId":"([0-9a-f-]{36})"/.exec(seen)?.[1] ?? null);
  await request(t.app)
    .post(`/sandbox/relays/${relay.body.relayId as string}/replies/${requestId}`)
    .set(owner)
    .send({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"pong":true}' })
    .expect(202);
  expect(await (await call).json()).toEqual({ pong: true });
}, 120_000);
