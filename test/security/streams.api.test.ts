import { once } from 'node:events';
import { get, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { DestinationStream } from 'pino';
import request from 'supertest';

import { createLogger } from '../../src/core/logger.js';
import { DASHBOARD_PATHS } from '../../src/dashboard/page-config.js';
import { accountChannel } from '../../src/live/index.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { signInToDashboard } from '../helpers/dashboard-sign-in.js';
import { bearer, DEMO_ACCOUNT_ID, DEMO_API_KEY, OTHER_ACCOUNT_ID, OTHER_API_KEY } from '../helpers/demo.js';
import { eventually } from '../helpers/waiting.js';

// Event streams respect their readers: a client that stops reading while events arrive is
// closed once STREAM_BUFFER_LIMIT bytes wait for it, so the server holds no more than that (and
// the message that passed it) for the client; and a process bounds its open streams, per account
// (MAX_OPEN_RELAYS, MAX_OPEN_STREAMS) and in all (MAX_OPEN_STREAMS_TOTAL). Real clients on
// loopback, reading with node:http (a paused response stops reading the socket).

const BUFFER_LIMIT = 64 * 1024;

interface Running {
  t: TestApp;
  server: Server;
  base: string;
  /** The warn and error lines logged so far. */
  logs: () => Record<string, unknown>[];
}

const running: Running[] = [];
const opened: IncomingMessage[] = [];

async function start(env: Record<string, string>): Promise<Running> {
  const lines: string[] = [];
  const destination: DestinationStream = { write: (line: string) => void lines.push(line) };
  const t = await buildTestApp({ env, logger: createLogger('warn', destination) });
  const server = t.app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const logs = (): Record<string, unknown>[] => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  const started = { t, server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, logs };
  running.push(started);
  return started;
}

afterEach(async () => {
  for (const res of opened.splice(0)) res.destroy();
  for (const { t, server } of running.splice(0)) {
    t.deps.liveStreams.closeAll();
    t.deps.relays.closeAll();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await t.deps.dispatcher.idle();
  }
});

/** Opens an event stream; resolves with the response once its headers arrived. */
function openStream(url: string, headers: Record<string, string>): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      opened.push(res);
      resolve(res);
    }).on('error', reject);
  });
}

/** Reads the stream until `text` arrived, then stops reading it (the response is paused: its socket is read no more). */
async function readUntilThenStall(res: IncomingMessage, text: string): Promise<{ closed: Promise<void> }> {
  const closed = new Promise<void>((resolve) => {
    res.on('close', resolve);
    res.on('error', () => resolve());
  });
  let seen = '';
  await new Promise<void>((resolve) => {
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString('utf8');
      if (!seen.includes(text)) return;
      res.off('data', onData);
      res.pause();
      resolve();
    };
    res.on('data', onData);
  });
  return { closed };
}

const stalledLines = (r: Running): Record<string, unknown>[] =>
  r.logs().filter((l) => l['msg'] === 'event stream closed: its client does not read');

describe('a relay stream whose listener stops reading while webhooks arrive', () => {
  it('is closed once STREAM_BUFFER_LIMIT bytes wait for it: the server never holds more than that and one request for it', async () => {
    const r = await start({ STREAM_BUFFER_LIMIT: String(BUFFER_LIMIT), WEBHOOK_TIMEOUT_MS: '100' });
    const relay = await request(r.t.app).post('/sandbox/relays').set(bearer(DEMO_API_KEY)).send({}).expect(200);
    const relayId = relay.body.relayId as string;
    const owner = { ...bearer(DEMO_API_KEY), 'X-Relay-Key': relay.body.relayKey as string };
    const stream = await openStream(`${r.base}/sandbox/relays/${relayId}/requests`, owner);
    expect(stream.statusCode).toBe(200);
    const { closed } = await readUntilThenStall(stream, 'event: ready');
    expect(r.t.deps.relays.openStreams(DEMO_ACCOUNT_ID)).toBe(1);

    // 90 kB bodies, ten at a time, until the stream is closed (the loopback socket's own buffers take several MB first).
    const body = { blob: 'x'.repeat(90 * 1024) };
    let sent = 0;
    while (r.t.deps.relays.openStreams(DEMO_ACCOUNT_ID) > 0 && sent < 1000) {
      await Promise.all(
        Array.from({ length: 10 }, () =>
          fetch(`${r.base}/relay/${relayId}`, {
            method: 'POST',
            headers: { ...owner, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          }).then((res) => res.arrayBuffer()),
        ),
      );
      sent += 10;
    }
    expect(r.t.deps.relays.openStreams(DEMO_ACCOUNT_ID)).toBe(0);
    await closed;
    expect(r.t.deps.streamSlots.open).toBe(0);
    const [line] = stalledLines(r);
    expect(line).toMatchObject({
      level: 'warn',
      stream: 'relay',
      accountId: DEMO_ACCOUNT_ID,
      relayId,
      limit: 'STREAM_BUFFER_LIMIT',
    });
    // What waited for the client when it was dropped: past the limit by at most the request that passed it.
    const oneRequest = JSON.stringify(body).length * 1.2 + 4096;
    expect(line!['bufferedBytes']).toBeGreaterThan(BUFFER_LIMIT);
    expect(line!['bufferedBytes']).toBeLessThanOrEqual(BUFFER_LIMIT + oneRequest);
    // A listener that reads gets its requests again: a new stream is taken.
    const again = await openStream(`${r.base}/sandbox/relays/${relayId}/requests`, owner);
    expect(again.statusCode).toBe(200);
  });
});

describe("a dashboard stream whose browser stops reading while the account's events arrive", () => {
  it('is closed once STREAM_BUFFER_LIMIT bytes wait for it', async () => {
    const r = await start({ STREAM_BUFFER_LIMIT: String(BUFFER_LIMIT) });
    const { cookie } = await signInToDashboard(r.base);
    const stream = await openStream(`${r.base}${DASHBOARD_PATHS.events}`, { cookie });
    expect(stream.statusCode).toBe(200);
    const { closed } = await readUntilThenStall(stream, '"hello"');
    // Events of 64 kB each, straight onto the account's channel (the sandbox's own are small; a burst of them works the same way).
    const big = { type: 'request', method: 'GET', path: `/v1/${'x'.repeat(64 * 1024)}`, status: 200 };
    for (let i = 0; i < 1000 && r.t.deps.liveStreams.count(DEMO_ACCOUNT_ID) > 0; i++) {
      await r.t.store.events.publish(accountChannel(DEMO_ACCOUNT_ID), big);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(r.t.deps.liveStreams.count(DEMO_ACCOUNT_ID)).toBe(0);
    await closed;
    const [line] = stalledLines(r);
    expect(line).toMatchObject({ stream: 'dashboard', accountId: DEMO_ACCOUNT_ID, limit: 'STREAM_BUFFER_LIMIT' });
    expect(line!['bufferedBytes']).toBeLessThanOrEqual(BUFFER_LIMIT + JSON.stringify(big).length + 100);
    expect(r.t.deps.streamSlots.open).toBe(0);
  });
});

describe('open streams per account and per process', () => {
  it('MAX_OPEN_STREAMS: a hosted account holds at most 10 dashboard streams on a replica; the next is a 409 naming it', async () => {
    const r = await start({ PUBLIC_URL: 'https://sandbox.example.com' });
    const { cookie } = await signInToDashboard(r.base);
    for (let i = 0; i < 10; i++)
      expect((await openStream(`${r.base}${DASHBOARD_PATHS.events}`, { cookie })).statusCode).toBe(200);
    const refused = await openStream(`${r.base}${DASHBOARD_PATHS.events}`, { cookie });
    expect(refused.statusCode).toBe(409);
    const body = JSON.parse(await text(refused)) as Record<string, unknown>;
    expect(body).toEqual({
      error: 'limit_reached',
      message:
        'This account has 10 dashboard streams open on this sandbox, the most it allows (MAX_OPEN_STREAMS=10); close a dashboard tab first',
    });
  });

  it("MAX_OPEN_STREAMS_TOTAL: dashboards and listeners of every account share the process's streams; when all are held, an account with fewer takes the oldest of the biggest holder's, and a 409 names the setting when nobody holds two more", async () => {
    const r = await start({ MAX_OPEN_STREAMS_TOTAL: '2' });
    const relay = await request(r.t.app).post('/sandbox/relays').set(bearer(DEMO_API_KEY)).send({}).expect(200);
    const listener = await openStream(`${r.base}/sandbox/relays/${relay.body.relayId as string}/requests`, {
      ...bearer(DEMO_API_KEY),
      'X-Relay-Key': relay.body.relayKey as string,
    });
    expect(listener.statusCode).toBe(200);
    const listenerClosed = new Promise<void>((resolve) => listener.on('close', resolve));
    listener.resume();
    const { cookie } = await signInToDashboard(r.base);
    const dashboard = await openStream(`${r.base}${DASHBOARD_PATHS.events}`, { cookie });
    expect(dashboard.statusCode).toBe(200);

    // The other account's first stream: the demo account holds both, so its oldest (the listener) ends.
    const otherRelay = await request(r.t.app).post('/sandbox/relays').set(bearer(OTHER_API_KEY)).send({}).expect(200);
    const otherOwner = { ...bearer(OTHER_API_KEY), 'X-Relay-Key': otherRelay.body.relayKey as string };
    const otherStream = `${r.base}/sandbox/relays/${otherRelay.body.relayId as string}/requests`;
    expect((await openStream(otherStream, otherOwner)).statusCode).toBe(200);
    await listenerClosed;
    expect([r.t.deps.streamSlots.heldBy(DEMO_ACCOUNT_ID), r.t.deps.streamSlots.heldBy(OTHER_ACCOUNT_ID)]).toEqual([
      1, 1,
    ]);
    expect(r.logs()).toContainEqual(
      expect.objectContaining({
        msg: "event stream ended: its slot went to an account holding fewer of this replica's streams",
        accountId: DEMO_ACCOUNT_ID,
        forAccountId: OTHER_ACCOUNT_ID,
        limit: 'MAX_OPEN_STREAMS_TOTAL',
      }),
    );

    // Now each holds one: neither takes the other's; a 409 names the setting, until one closes.
    const refused = await openStream(`${r.base}${DASHBOARD_PATHS.events}`, { cookie });
    expect(refused.statusCode).toBe(409);
    expect(JSON.parse(await text(refused))).toEqual({
      error: 'limit_reached',
      message:
        'This sandbox has 2 event streams open on this replica, the most it allows (MAX_OPEN_STREAMS_TOTAL=2), and none held by an account with more than its share; try again once some have closed',
    });
    expect((await openStream(otherStream, otherOwner)).statusCode).toBe(409);
    dashboard.destroy();
    await eventually(() => (r.t.deps.streamSlots.open === 1 ? true : null));
    expect((await openStream(otherStream, otherOwner)).statusCode).toBe(200);
  });
});

function text(res: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (body += chunk));
    res.on('end', () => resolve(body));
  });
}
