import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { describeProtections } from '../../src/config.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, OTHER_API_KEY } from '../helpers/demo.js';
import { attach, detachListeners, openRelay, relayKeyOf } from '../helpers/relay-listener.js';
import { eventually } from '../helpers/waiting.js';

// Fair shares of a replica (MAX_CONCURRENT_REQUESTS, MAX_QUEUED_REQUESTS): one client's requests
// take turns, so another client's request never waits behind a flood. A client is its address
// (an IPv6 /64 as one, through X-Forwarded-For from the loopback proxy) and, apart from it, its
// credential. The slow request that holds a turn is a relay call: it waits, on a real listener,
// for the answer the test gives when it chooses; the waits are read from /metrics.

const A = '2001:db8:a:1::1';
const A_SAME_64 = '2001:db8:a:1:ffff:ffff:ffff:2';
const B = '198.51.100.7';
const C = '198.51.100.9';

/** One request of a client at a time and one waiting; relay calls wait as long as a test needs. */
const ONE_AT_A_TIME = { MAX_CONCURRENT_REQUESTS: '1', MAX_QUEUED_REQUESTS: '1', WEBHOOK_TIMEOUT_MS: '60000' };

let running: { t: TestApp; server: Server; base: string } | null = null;

async function start(env: Record<string, string>): Promise<{ t: TestApp; base: string }> {
  const t = await buildTestApp({ env });
  const server = t.app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  running = { t, server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  return running;
}

afterEach(async () => {
  detachListeners();
  if (running === null) return;
  const { t, server } = running;
  running = null;
  t.deps.relays.closeAll();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await t.deps.dispatcher.idle();
});

/** A request from `from` with the API key `key`; `settled` says whether it has been answered yet. */
function send(
  base: string,
  path: string,
  {
    from,
    key,
    method = 'GET',
    body,
    headers = {},
  }: { from: string; key?: string; method?: string; body?: unknown; headers?: Record<string, string> },
): { answer: Promise<Response>; settled: () => boolean } {
  let settled = false;
  const answer = fetch(`${base}${path}`, {
    method,
    headers: {
      'x-forwarded-for': from,
      ...headers,
      ...(key === undefined ? {} : bearer(key)),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }).finally(() => (settled = true));
  return { answer, settled: () => settled };
}

const waitingRequests = async (base: string): Promise<number> => {
  const text = await (await fetch(`${base}/metrics`)).text();
  return Number(/^sandbox_http_requests_waiting (\d+)/m.exec(text)?.[1]);
};

/** A relay call of the demo account from `from`, held until `answer` (its listener has it: the call holds its turns). */
async function heldRelayCall(
  t: TestApp,
  base: string,
  from: string,
): Promise<{ call: ReturnType<typeof send>; answer: () => Promise<void> }> {
  const { relayId } = await openRelay(t);
  // The listener's stream is open, and gives its turn back once open: else the call below would wait for it.
  const listener = await attach(base, relayId);
  const call = send(base, `/relay/${relayId}`, {
    from,
    key: DEMO_API_KEY,
    method: 'POST',
    body: { held: true },
    headers: relayKeyOf(relayId),
  });
  const forwarded = JSON.parse((await listener.next('request')).data) as { requestId: string };
  return {
    call,
    answer: async () => {
      // The listener's answer takes turns of its own: the call it answers holds the account's.
      const reply = send(base, `/sandbox/relays/${relayId}/replies/${forwarded.requestId}`, {
        from: A,
        key: DEMO_API_KEY,
        method: 'POST',
        body: { status: 200, body: 'ok' },
        headers: relayKeyOf(relayId),
      });
      expect((await reply.answer).status).toBe(202);
    },
  };
}

describe('one client at a time, the rest in turn (hosted: MAX_CONCURRENT_REQUESTS)', () => {
  it("a client's next request waits for its turn, by address (a /64) and by credential; another client's does not", async () => {
    const { t, base } = await start(ONE_AT_A_TIME);
    const held = await heldRelayCall(t, base, A);

    // Same /64, another account: waits for the address's turn. Another address, the same key: waits for the key's.
    const sameAddress = send(base, '/v1/locations', { from: A_SAME_64, key: OTHER_API_KEY });
    const sameKey = send(base, '/v1/locations', { from: C, key: DEMO_API_KEY });
    await eventually(async () => (await waitingRequests(base)) === 2);

    // Another client, neither address nor key in common, is answered at once.
    const other = await send(base, '/v1/locations', { from: B, key: OTHER_API_KEY }).answer;
    expect(other.status).toBe(200);
    expect([sameAddress.settled(), sameKey.settled(), held.call.settled()]).toEqual([false, false, false]);

    // Past the queue of the /64: a 429 naming the settings, and nothing of it kept waiting.
    const refused = await send(base, '/v1/locations', { from: A, key: OTHER_API_KEY }).answer;
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toEqual({
      error: 'rate_limited',
      message: expect.stringMatching(/MAX_CONCURRENT_REQUESTS, MAX_QUEUED_REQUESTS/),
    });
    expect(await waitingRequests(base)).toBe(2);

    // The held call answered, each waiting request has its turn.
    await held.answer();
    expect((await held.call.answer).status).toBe(200);
    expect((await sameAddress.answer).status).toBe(200);
    expect((await sameKey.answer).status).toBe(200);
    expect(await waitingRequests(base)).toBe(0);
    const limited = await (await fetch(`${base}/metrics`)).text();
    expect(limited).toMatch(/^sandbox_limited_requests_total\{rule="MAX_QUEUED_REQUESTS"\} 1$/m);
  });

  it('a request that gives up while it waits leaves its place in the queue', async () => {
    const { t, base } = await start(ONE_AT_A_TIME);
    const held = await heldRelayCall(t, base, A);
    const abort = new AbortController();
    const gaveUp = fetch(`${base}/v1/locations`, {
      headers: { 'x-forwarded-for': A_SAME_64, ...bearer(OTHER_API_KEY) },
      signal: abort.signal,
    }).catch((error: unknown) => (error as { name?: string }).name);
    await eventually(async () => (await waitingRequests(base)) === 1);
    abort.abort();
    expect(await gaveUp).toBe('AbortError');
    await eventually(async () => (await waitingRequests(base)) === 0);
    // Its place is free: the next request of the /64 waits (it is not refused), and has its turn after the held call.
    const next = send(base, '/v1/locations', { from: A, key: OTHER_API_KEY });
    await eventually(async () => (await waitingRequests(base)) === 1);
    await held.answer();
    expect((await next.answer).status).toBe(200);
  });

  it("event streams give their turn back once open: a client's open streams do not hold its requests", async () => {
    const { t, base } = await start({ MAX_CONCURRENT_REQUESTS: '1', MAX_QUEUED_REQUESTS: '0' });
    const first = await openRelay(t);
    const second = await openRelay(t);
    expect((await attach(base, first.relayId)).response.status).toBe(200);
    expect((await attach(base, second.relayId)).response.status).toBe(200);
    const answer = await send(base, '/v1/locations', { from: '127.0.0.1', key: DEMO_API_KEY }).answer;
    expect(answer.status).toBe(200);
  });

  it('a local sandbox gates nothing: requests of one client are all worked on at once', async () => {
    const { t, base } = await start({ WEBHOOK_TIMEOUT_MS: '60000' });
    expect(t.deps.config.limits.concurrentRequests).toBe(0);
    const held = await heldRelayCall(t, base, A);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => send(base, '/v1/locations', { from: A, key: DEMO_API_KEY }).answer),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(held.call.settled()).toBe(false);
    expect(await waitingRequests(base)).toBe(0);
    await held.answer();
    expect((await held.call.answer).status).toBe(200);
  });

  it('a hosted sandbox gates by default, and says so at start-up', async () => {
    const { t } = await start({ PUBLIC_URL: 'https://sandbox.example.com' });
    expect(t.deps.config.limits).toMatchObject({ concurrentRequests: 4, queuedRequests: 64 });
    const lines = describeProtections(t.deps.config, 'https://sandbox.example.com');
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /MAX_CONCURRENT_REQUESTS=4 +4 requests of one client address or credential at once on each replica, the rest wait their turn \(hosted default\)$/,
        ),
        expect.stringMatching(
          /MAX_QUEUED_REQUESTS=64 +64 requests of one client waiting on each replica; the next is a 429 \(hosted default\)$/,
        ),
      ]),
    );
  });
});
