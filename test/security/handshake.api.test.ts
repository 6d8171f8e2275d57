import request from 'supertest';

import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID, OTHER_API_KEY } from '../helpers/demo.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

// The confirmation handshake is what proves an endpoint asked for the sandbox's traffic. On a
// hosted sandbox (PUBLIC_URL not loopback) its token therefore reaches the endpoint only: the
// resend control sends a fresh one there and answers without it, and the delivery log shows it
// hidden. The account's own relay endpoints (`water-sandbox listen`) and a local sandbox keep
// the token in the answer, so a partner without a reachable endpoint can still confirm.

// Hosted, with the receiver on loopback let through (the settings given win over the hosted defaults).
const HOSTED = { PUBLIC_URL: 'https://sandbox.example.com', ENDPOINT_POLICY: 'any', BLOCK_PRIVATE_ENDPOINTS: 'false' };

interface Confirmation {
  confirmationUrl: string;
  confirmationToken: string;
}

let receiver: WebhookReceiver;
const apps: TestApp[] = [];

beforeEach(async () => {
  receiver = await WebhookReceiver.start();
});

afterEach(async () => {
  for (const t of apps.splice(0)) await t.deps.dispatcher.idle();
  await receiver.close();
});

async function app(env: Record<string, string>): Promise<TestApp> {
  const t = await buildTestApp({ env });
  apps.push(t);
  return t;
}

async function subscribe(t: TestApp, endpoint: string): Promise<string> {
  const created = await request(t.app)
    .post(`/v1/locations/${DEMO_LOCATION_ID}/subscriptions`)
    .set(bearer(DEMO_API_KEY))
    .send({ endpoint })
    .expect(200);
  await t.deps.dispatcher.drain();
  return created.body.subscriptionId as string;
}

/** The confirmation messages the receiver got, in order. */
const confirmationsReceived = (): Confirmation[] =>
  receiver.received
    .filter(
      (r) => r.method === 'POST' && typeof (r.body as Partial<Confirmation> | null)?.confirmationToken === 'string',
    )
    .map((r) => r.body as Confirmation);

const resend = (t: TestApp, subscriptionId: string, key = DEMO_API_KEY): request.Test =>
  request(t.app).post(`/sandbox/subscriptions/${subscriptionId}/confirmation`).set(bearer(key));

const confirmWith = (t: TestApp, confirmation: Confirmation): request.Test => {
  const url = new URL(confirmation.confirmationUrl);
  return request(t.app)
    .get(url.pathname + url.search)
    .set(bearer(DEMO_API_KEY));
};

describe('a hosted sandbox', () => {
  it('resends a fresh token to the endpoint and answers where it went, without the token; the endpoint confirms with it', async () => {
    const t = await app(HOSTED);
    const endpoint = receiver.url('/hooks');
    const subscriptionId = await subscribe(t, endpoint);
    const [first] = confirmationsReceived();

    const res = await resend(t, subscriptionId).expect(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({ subscriptionId, endpoint, deliveryId: expect.any(String) });
    await t.deps.dispatcher.drain();
    const [, fresh] = confirmationsReceived();
    expect(fresh!.confirmationToken).not.toBe(first!.confirmationToken);
    expect(fresh!.confirmationUrl).toBe(
      `https://sandbox.example.com/v1/subscriptions/${subscriptionId}/confirm?confirmationToken=${encodeURIComponent(fresh!.confirmationToken)}`,
    );
    expect(res.text).not.toContain(fresh!.confirmationToken);

    // The delivery the answer names is the fresh message, its token hidden.
    const delivery = await request(t.app)
      .get(`/sandbox/deliveries/${res.body.deliveryId as string}`)
      .set(bearer(DEMO_API_KEY))
      .expect(200);
    expect(delivery.body).toMatchObject({ kind: 'confirmation', target: endpoint, state: 'delivered' });
    expect(delivery.body.payload).toEqual({
      confirmationUrl: `https://sandbox.example.com/v1/subscriptions/${subscriptionId}/confirm?confirmationToken=[hidden]`,
      confirmationToken: '[hidden]',
    });

    // The old token was replaced; the endpoint's fresh one confirms.
    await confirmWith(t, first!).expect(400);
    const confirmed = await confirmWith(t, fresh!).expect(200);
    expect(confirmed.body).toMatchObject({ subscriptionId, status: 'confirmed' });
  });

  it("shows no confirmation token anywhere in the account's delivery log, nor in a redelivery's answer", async () => {
    const t = await app(HOSTED);
    const subscriptionId = await subscribe(t, receiver.url('/log'));
    await resend(t, subscriptionId).expect(200);
    await t.deps.dispatcher.drain();
    const tokens = confirmationsReceived().map((c) => c.confirmationToken);
    expect(tokens).toHaveLength(2);

    const log = await request(t.app)
      .get(`/sandbox/deliveries?subscriptionId=${subscriptionId}`)
      .set(bearer(DEMO_API_KEY))
      .expect(200);
    const confirmations = (log.body.deliveries as { kind: string; deliveryId: string; payload: unknown }[]).filter(
      (d) => d.kind === 'confirmation',
    );
    expect(confirmations).toHaveLength(2);
    for (const d of confirmations) expect(d.payload).toMatchObject({ confirmationToken: '[hidden]' });
    const again = await request(t.app)
      .post(`/sandbox/deliveries/${confirmations[0]!.deliveryId}/redeliver`)
      .set(bearer(DEMO_API_KEY))
      .expect(201);
    for (const text of [log.text, again.text]) for (const token of tokens) expect(text).not.toContain(token);
    expect(again.body.payload).toMatchObject({ confirmationToken: '[hidden]' });
  });

  it('a stranger cannot resend a subscription of another account', async () => {
    const t = await app(HOSTED);
    const subscriptionId = await subscribe(t, receiver.url('/mine'));
    await resend(t, subscriptionId, OTHER_API_KEY).expect(404);
  });

  it("keeps the token in the answer and the log for the account's own relay endpoint (water-sandbox listen)", async () => {
    const t = await app(HOSTED);
    const relay = await request(t.app).post('/sandbox/relays').set(bearer(DEMO_API_KEY)).send({}).expect(200);
    expect(relay.body.endpoint).toMatch(/^https:\/\/sandbox\.example\.com\/relay\//);
    const subscriptionId = await subscribe(t, relay.body.endpoint as string);

    const res = await resend(t, subscriptionId).expect(200);
    expect(res.body).toEqual({
      subscriptionId,
      confirmationUrl: expect.stringContaining(`/v1/subscriptions/${subscriptionId}/confirm?confirmationToken=`),
      confirmationToken: expect.any(String),
    });
    const log = await request(t.app)
      .get(`/sandbox/deliveries?subscriptionId=${subscriptionId}&kind=confirmation`)
      .set(bearer(DEMO_API_KEY))
      .expect(200);
    expect(log.body.deliveries[0].payload).toEqual({
      confirmationUrl: res.body.confirmationUrl,
      confirmationToken: res.body.confirmationToken,
    });
    await confirmWith(t, res.body as Confirmation).expect(200);
  });
});

describe('a local sandbox', () => {
  it('answers the resend with the fresh token, as before, and shows it in the log', async () => {
    const t = await app({});
    const subscriptionId = await subscribe(t, receiver.url('/local'));
    const res = await resend(t, subscriptionId).expect(200);
    expect(Object.keys(res.body as object).sort()).toEqual(['confirmationToken', 'confirmationUrl', 'subscriptionId']);
    await t.deps.dispatcher.drain();
    const [, fresh] = confirmationsReceived();
    expect(res.body).toEqual({ subscriptionId, ...fresh });
    const log = await request(t.app)
      .get(`/sandbox/deliveries?subscriptionId=${subscriptionId}&kind=confirmation`)
      .set(bearer(DEMO_API_KEY))
      .expect(200);
    expect(log.body.deliveries[0].payload).toEqual(fresh);
    await confirmWith(t, res.body as Confirmation).expect(200);
  });
});
