import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import request from 'supertest';

import { buildTestApp, changeDoc, deliveriesIn, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';
import { attach, detachListeners, openRelay, relayKeyOf } from '../helpers/relay-listener.js';
import { eventually } from '../helpers/waiting.js';

// Issue 40, item 4: on a hosted sandbox another partner using the demo key attached to the same
// relay as a victim (relay ids were the same for every caller of one account and name), sent
// requests with its own headers to the victim's local server and read its answers. A relay now
// belongs to the connection that opened it: a fresh id each time, not derived from the account
// and a name, and a key only its opener holds for its stream, its answers and its HTTP endpoint.

const HOSTED = { PUBLIC_URL: 'https://sandbox.example.com' };
const servers: Server[] = [];
let t: TestApp;
let base: string;

beforeEach(async () => {
  t = await buildTestApp({ env: HOSTED });
  const server = createServer(t.app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  detachListeners();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await t.deps.dispatcher.idle();
});

describe('two partners sharing the demo key on a hosted sandbox', () => {
  it("the stranger finds the victim's relay in the shared subscriptions but cannot attach, answer, or call it; the victim's webhooks still reach only the victim", async () => {
    // The victim: a relay, its listener, and a subscription to it.
    const victim = await openRelay(t);
    const listener = await attach(base, victim.relayId);
    await listener.next('ready');
    await request(t.app)
      .post(`/v1/locations/${DEMO_LOCATION_ID}/subscriptions`)
      .set(bearer(DEMO_API_KEY))
      .send({ endpoint: victim.endpoint })
      .expect(200);
    const confirmation = JSON.parse((await listener.next('request')).data) as { requestId: string };

    // The stranger, with the same key and the same name, gets a relay of its own.
    const stranger = (
      await request(t.app).post('/sandbox/relays').set(bearer(DEMO_API_KEY)).send({ name: 'default' }).expect(200)
    ).body as { relayId: string; relayKey: string };
    expect(stranger.relayId).not.toBe(victim.relayId);
    // It finds the victim's endpoint among the account's subscriptions.
    const listed = await request(t.app).get('/v1/subscriptions').set(bearer(DEMO_API_KEY)).expect(200);
    expect(JSON.stringify(listed.body)).toContain(victim.relayId);

    // It cannot attach: without a key, or with its own relay's.
    for (const key of [{}, { 'X-Relay-Key': stranger.relayKey }, { 'X-Relay-Key': victim.relayKey.toLowerCase() }]) {
      const attached = await attach(base, victim.relayId, DEMO_API_KEY, key);
      expect(attached.response.status).toBe(403);
      expect(((await attached.response.json()) as { error: string }).error).toBe('relay_key_invalid');
    }
    // It cannot send its own requests to the victim's local server through the relay, nor read answers.
    const call = await fetch(`${base}/relay/${victim.relayId}`, {
      method: 'POST',
      headers: { ...bearer(DEMO_API_KEY), 'content-type': 'application/json', 'x-evil': '1' },
      body: '{"steal":true}',
    });
    expect(call.status).toBe(403);
    expect(await call.json()).toEqual({
      error: 'relay_key_invalid',
      message:
        'X-Relay-Key is missing: a relay belongs to the connection that opened it (its relayKey came with POST /sandbox/relays); open a relay of your own',
    });
    // It cannot answer the victim's webhook in the victim's place.
    await request(t.app)
      .post(`/sandbox/relays/${victim.relayId}/replies/${confirmation.requestId}`)
      .set(bearer(DEMO_API_KEY))
      .set('X-Relay-Key', stranger.relayKey)
      .send({ status: 200, body: '{"forged":true}' })
      .expect(403);

    // The victim's listener saw only the sandbox's own webhook, and its answer is what was recorded.
    expect(listener.events.filter((e) => e.event === 'request')).toHaveLength(1);
    await request(t.app)
      .post(`/sandbox/relays/${victim.relayId}/replies/${confirmation.requestId}`)
      .set(bearer(DEMO_API_KEY))
      .set(relayKeyOf(victim.relayId))
      .send({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"mine":true}' })
      .expect(202);
    const delivered = await eventually(async () => {
      const [first] = (await deliveriesIn(t)).filter((d) => d.kind === 'confirmation');
      return first?.state === 'delivered' ? first : null;
    });
    expect(delivered.attempts[0]!.responseExcerpt).toBe('{"mine":true}');
  });

  it('a relay id of an earlier version (the same for every caller of an account and name) is served no more', async () => {
    const retired = 'default.abcdefghijklmnopqrstuv';
    const endpoint = `https://sandbox.example.com/relay/${retired}`;
    // A subscription made by an earlier version, kept in the store.
    await changeDoc(t, (doc) => {
      doc.subscriptions.push({
        subscriptionId: '00000000-0000-4000-8000-0000000000aa',
        accountId: doc.account.accountId,
        locationId: DEMO_LOCATION_ID,
        endpoint,
        status: 'confirmed',
        createdAt: new Date(0).toISOString(),
      });
    });
    const attached = await attach(base, retired, DEMO_API_KEY, {});
    expect(attached.response.status).toBe(404);
    expect(((await attached.response.json()) as { message: string }).message).toContain(
      'was made by an earlier version of this sandbox and is no longer served',
    );
    // An alert to it fails at once, saying what to do, and is never sent over the network.
    await request(t.app)
      .post(`/sandbox/locations/${DEMO_LOCATION_ID}/alerts`)
      .set(bearer(DEMO_API_KEY))
      .send({ type: 'highLeak' })
      .expect(201);
    await t.deps.dispatcher.drain();
    const [alert] = (await deliveriesIn(t)).filter((d) => d.target === endpoint);
    expect(alert!.attempts[0]!.error).toContain('run water-sandbox listen again and subscribe its new endpoint');
    // Nor can a new subscription name it.
    await request(t.app)
      .post(`/v1/locations/${DEMO_LOCATION_ID}/subscriptions`)
      .set(bearer(DEMO_API_KEY))
      .send({ endpoint })
      .expect(400);
  });
});
