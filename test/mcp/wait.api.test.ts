import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import request from 'supertest';

import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import {
  bearer,
  DEMO_ACCOUNT_ID,
  DEMO_API_KEY,
  DEMO_LOCATION_ID,
  OTHER_ACCOUNT_ID,
  OTHER_API_KEY,
} from '../helpers/demo.js';
import { callTool, connectMcp, listenOnLoopback } from '../helpers/mcp.js';
import { deferred, eventually, withDeadline } from '../helpers/waiting.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

// wait_for_delivery: woken by the delivery's own event (not by polling), it answers the delivery
// once it is in the state asked for, or, after its time, what the log holds. It holds a request, a
// subscription to the account's events and a stream slot, so it is bounded: MAX_MCP_WAITS per
// account, MAX_MCP_WAIT_SECONDS long, a slot of MAX_OPEN_STREAMS_TOTAL; and it ends at shutdown.

type Json = Record<string, unknown>;

let t: TestApp;
let served: Awaited<ReturnType<typeof listenOnLoopback>>;
let receiver: WebhookReceiver;
let client: Client;
const clients: Client[] = [];

async function start(env: Record<string, string> = {}): Promise<void> {
  t = await buildTestApp({ env });
  served = await listenOnLoopback(t.app);
  receiver = await WebhookReceiver.start();
  // A hosted sandbox answers the host of its PUBLIC_URL only: its tests speak to it with that Host.
  if (env['PUBLIC_URL'] !== undefined) return;
  client = await connectMcp(served.url, DEMO_API_KEY);
  clients.push(client);
}

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  receiver.fallback = { status: 200, body: '{"ok":true}' };
  await t.deps.dispatcher.idle();
  await receiver.close();
  await served.close();
});

/** A confirmed subscription of the demo location to the receiver (the confirmation answered 200 at once). */
async function subscribeReceiver(): Promise<string> {
  const created = await request(t.app)
    .post(`/v1/locations/${DEMO_LOCATION_ID}/subscriptions`)
    .set(bearer(DEMO_API_KEY))
    .send({ endpoint: receiver.url() })
    .expect(200);
  const [confirmation] = await receiver.waitForMatching(
    (r) => (r.body as Json | null)?.['confirmationUrl'] !== undefined,
  );
  const url = new URL((confirmation!.body as { confirmationUrl: string }).confirmationUrl);
  await request(t.app).get(`${url.pathname}${url.search}`).set(bearer(DEMO_API_KEY)).expect(200);
  await t.deps.dispatcher.idle();
  return (created.body as { subscriptionId: string }).subscriptionId;
}

const startLeak = (): request.Test =>
  request(t.app)
    .post(`/sandbox/locations/${DEMO_LOCATION_ID}/alerts`)
    .set(bearer(DEMO_API_KEY))
    .send({ type: 'highLeak' })
    .expect(201);

describe('wait_for_delivery', () => {
  beforeEach(async () => {
    await start();
  });

  it('waits on the event of the delivery: answered while the receiver holds its answer, it returns once the receiver answers', async () => {
    const subscriptionId = await subscribeReceiver();
    const gate = deferred();
    receiver.script = [{ status: 200, body: '{"ok":true}', until: gate.promise }];
    await startLeak();
    const waiting = callTool(client, 'wait_for_delivery', { kind: 'alert', alertType: 'highLeak', timeoutSeconds: 20 });
    await eventually(() => t.deps.mcpWaits.count(DEMO_ACCOUNT_ID) === 1);
    gate.resolve();
    const { isError, json } = await withDeadline(waiting, 10_000);
    expect(isError).toBe(false);
    expect(json).toMatchObject({
      matched: true,
      delivery: {
        kind: 'alert',
        state: 'delivered',
        subscriptionId,
        payload: { type: 'highLeak', active: true },
        attempts: [expect.objectContaining({ statusCode: 200 })],
      },
    });
    expect(json['waitedSeconds']).toBeLessThan(20);
    expect(t.deps.mcpWaits.count(DEMO_ACCOUNT_ID)).toBe(0);
  });

  it('does not poll: while nothing happens it reads the log once, then once more to say what it holds', async () => {
    const list = t.deps.store.deliveries.list.bind(t.deps.store.deliveries);
    let reads = 0;
    t.deps.store.deliveries.list = (...args) => {
      reads++;
      return list(...args);
    };
    const { json } = await callTool(client, 'wait_for_delivery', { kind: 'alert', timeoutSeconds: 1.5 });
    expect(json).toMatchObject({ matched: false, ended: 'timeout', waitedSeconds: 1.5 });
    // The first look, then the answer's: the newest that fits, the latest five, the three counts.
    expect(reads).toBe(1 + 5);
  });

  it('after its time, says what the log holds: the newest delivery that fits, pending after a failed attempt, and the counts', async () => {
    await subscribeReceiver();
    receiver.fallback = { status: 500, body: '{"error":"down"}' };
    await startLeak();
    await t.deps.dispatcher.idle();
    const { isError, json } = await callTool(client, 'wait_for_delivery', {
      kind: 'alert',
      state: 'delivered',
      timeoutSeconds: 0.5,
    });
    expect(isError).toBe(false);
    expect(json).toMatchObject({
      matched: false,
      ended: 'timeout',
      newestFitting: { kind: 'alert', state: 'pending', attempts: [expect.objectContaining({ statusCode: 500 })] },
      log: {
        pending: 1,
        delivered: expect.any(Number),
        failed: 0,
        latest: expect.arrayContaining([
          expect.objectContaining({ kind: 'alert', state: 'pending', lastStatusCode: 500 }),
        ]),
      },
    });
    expect(json['message']).toMatch(
      /^No alert delivery reached delivered within 0.5 s\. The newest that fits, \S+, is pending after 1 attempt \(the last: 500, .*\); the log holds 1 pending, \d+ delivered and 0 failed deliveries\.$/,
    );
  });

  it('when nothing fits, says so and what to do', async () => {
    const { json } = await callTool(client, 'wait_for_delivery', { alertType: 'awayLeak', timeoutSeconds: 0.2 });
    expect(json).toMatchObject({ matched: false, newestFitting: null });
    expect(json['message']).toMatch(
      /^No alert delivery \(awayLeak\) reached delivered or failed within 0.2 s\. Nothing in the log fits; .*create_subscription.*start_alert/,
    );
  });

  it('ends when its client goes away, giving its place back', async () => {
    const leaving = await connectMcp(served.url, DEMO_API_KEY);
    const waiting = leaving.callTool({ name: 'wait_for_delivery', arguments: { kind: 'alert', timeoutSeconds: 30 } });
    await eventually(() => t.deps.mcpWaits.count(DEMO_ACCOUNT_ID) === 1);
    // Closing the client aborts its request: the connection ends, and with it the wait.
    await leaving.close();
    await expect(waiting).rejects.toThrow();
    await eventually(() => t.deps.mcpWaits.count(DEMO_ACCOUNT_ID) === 0);
    expect(t.deps.streamSlots.open).toBe(0);
  });

  it('ends at shutdown with what the log holds', async () => {
    const waiting = callTool(client, 'wait_for_delivery', { kind: 'confirmation', timeoutSeconds: 30 });
    await eventually(() => t.deps.mcpWaits.count(DEMO_ACCOUNT_ID) === 1);
    t.deps.mcpWaits.closeAll();
    const { json } = await withDeadline(waiting, 5000);
    expect(json).toMatchObject({ matched: false, ended: 'stopping' });
    expect(json['message']).toMatch(/before the sandbox began to stop/);
  });

  it('refuses kinds that have no alert with an alert field, naming kind', async () => {
    const { isError, json } = await callTool(client, 'wait_for_delivery', {
      kind: 'confirmation',
      alertType: 'highLeak',
    });
    expect(isError).toBe(true);
    expect(json).toMatchObject({
      status: 400,
      parameter: 'kind',
      message: expect.stringMatching(/kind confirmation has neither/),
    });
  });
});

describe('its bounds', () => {
  it('MAX_MCP_WAITS: one more wait of the account is a 409 tool error naming it; another account still waits', async () => {
    await start({ MAX_MCP_WAITS: '1' });
    const first = callTool(client, 'wait_for_delivery', { kind: 'alert', timeoutSeconds: 30 });
    await eventually(() => t.deps.mcpWaits.count(DEMO_ACCOUNT_ID) === 1);
    const second = await callTool(client, 'wait_for_delivery', { kind: 'alert', timeoutSeconds: 1 });
    expect(second).toEqual({
      isError: true,
      json: {
        status: 409,
        error: 'limit_reached',
        message:
          'This account has 1 wait_for_delivery calls waiting on this sandbox, the most it allows (MAX_MCP_WAITS=1); let one end first',
      },
    });
    const theirs = await connectMcp(served.url, OTHER_API_KEY);
    clients.push(theirs);
    expect((await callTool(theirs, 'wait_for_delivery', { kind: 'alert', timeoutSeconds: 0.1 })).isError).toBe(false);
    t.deps.mcpWaits.closeAll();
    expect((await first).json).toMatchObject({ matched: false, ended: 'stopping' });
  });

  it('MAX_MCP_WAIT_SECONDS: a longer wait is refused naming it; a hosted sandbox allows 20 s', async () => {
    await start({ PUBLIC_URL: 'https://sandbox.example.com' });
    // A hosted sandbox answers its PUBLIC_URL's host only, as a proxy in front would send it.
    expect(t.deps.config.limits.mcpWaitSeconds).toBe(20);
    const answer = await request(t.app)
      .post('/mcp')
      .set('Host', 'sandbox.example.com')
      .set(bearer(DEMO_API_KEY))
      .set('Accept', 'application/json, text/event-stream')
      .send({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'wait_for_delivery', arguments: { timeoutSeconds: 21 } },
      })
      .expect(200);
    const result = (answer.body as { result: { isError: boolean; content: { text: string }[] } }).result;
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[0]!.text)).toEqual({
      status: 400,
      error: 'invalid_parameter',
      parameter: 'timeoutSeconds',
      message:
        'timeoutSeconds must be at most 20 on this sandbox (MAX_MCP_WAIT_SECONDS=20); got 21: wait again after it answers',
    });
  });

  it('each wait takes a slot of MAX_OPEN_STREAMS_TOTAL, which every account shares with dashboards and listeners', async () => {
    await start({ MAX_OPEN_STREAMS_TOTAL: '1' });
    const first = callTool(client, 'wait_for_delivery', { kind: 'alert', timeoutSeconds: 30 });
    await eventually(() => t.deps.streamSlots.open === 1);
    const theirs = await connectMcp(served.url, OTHER_API_KEY);
    clients.push(theirs);
    expect(await callTool(theirs, 'wait_for_delivery', { kind: 'alert', timeoutSeconds: 1 })).toMatchObject({
      isError: true,
      json: { status: 409, error: 'limit_reached', message: expect.stringMatching(/MAX_OPEN_STREAMS_TOTAL=1/) },
    });
    t.deps.mcpWaits.closeAll();
    await first;
    expect(t.deps.streamSlots.open).toBe(0);
    expect(t.deps.mcpWaits.count(OTHER_ACCOUNT_ID)).toBe(0);
  });

  it("a wait holds its client's turn of the fair share (MAX_CONCURRENT_REQUESTS): past MAX_QUEUED_REQUESTS the client's next request is a 429", async () => {
    await start({ MAX_CONCURRENT_REQUESTS: '1', MAX_QUEUED_REQUESTS: '1' });
    const waiting = callTool(client, 'wait_for_delivery', { kind: 'alert', timeoutSeconds: 30 });
    await eventually(() => t.deps.mcpWaits.count(DEMO_ACCOUNT_ID) === 1);
    const queued = callTool(client, 'get_clock');
    const refused = await request(t.app)
      .post('/mcp')
      .set('Host', new URL(served.url).host)
      .set(bearer(DEMO_API_KEY))
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 9, method: 'ping' });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      error: 'rate_limited',
      message: expect.stringMatching(/MAX_QUEUED_REQUESTS/),
    });
    t.deps.mcpWaits.closeAll();
    await waiting;
    expect((await queued).isError).toBe(false);
  });
});
