import request from 'supertest';

import { ATTEMPT_HEADER, DELIVERY_ID_HEADER } from '../../src/webhooks/index.js';
import { useAppAndReceiver } from '../helpers/app-and-receiver.js';
import { deliveriesIn, docOf } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID, DEMO_LOCATIONS } from '../helpers/demo.js';
import { givenSubscription, startAlert } from './support.js';

const { t, receiver } = useAppAndReceiver();

const subscribe = (endpoint: string, locationId = DEMO_LOCATION_ID) =>
  request(t.app).post(`/v1/locations/${locationId}/subscriptions`).set(bearer(DEMO_API_KEY)).send({ endpoint });

describe('webhook headers', () => {
  it('carry X-Sandbox-Delivery-Id, the same on every retry, and X-Sandbox-Attempt counting 1, 2, ...', async () => {
    receiver.script = [{ status: 503 }, { status: 500 }];
    await givenSubscription(t, receiver.url());
    await startAlert(t, { type: 'lowLeak' }).expect(201);
    await t.deps.dispatcher.drain();
    for (let i = 0; i < 2; i++) {
      t.clock.advance(10_000);
      await t.deps.dispatcher.drain();
    }
    const posts = receiver.received.filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(3);
    const [delivery] = await deliveriesIn(t);
    expect(posts.map((p) => p.headers[DELIVERY_ID_HEADER.toLowerCase()])).toEqual([
      delivery!.deliveryId,
      delivery!.deliveryId,
      delivery!.deliveryId,
    ]);
    expect(posts.map((p) => p.headers[ATTEMPT_HEADER.toLowerCase()])).toEqual(['1', '2', '3']);
    expect(delivery!.state).toBe('delivered');
  });

  it('differ between deliveries, and a redelivery is a new delivery id starting at attempt 1', async () => {
    await givenSubscription(t, receiver.url());
    await startAlert(t, { type: 'lowLeak' }).expect(201);
    await t.deps.dispatcher.drain();
    const [first] = await deliveriesIn(t);
    await request(t.app)
      .post(`/sandbox/deliveries/${first!.deliveryId}/redeliver`)
      .set(bearer(DEMO_API_KEY))
      .expect(201);
    await t.deps.dispatcher.drain();
    const [one, two] = receiver.received;
    expect(one!.headers['x-sandbox-delivery-id']).toBe(first!.deliveryId);
    expect(two!.headers['x-sandbox-delivery-id']).not.toBe(first!.deliveryId);
    expect(two!.headers['x-sandbox-attempt']).toBe('1');
  });
});

describe("the delivery log's requestHeaders", () => {
  it('are the headers the receiver got on the first attempt', async () => {
    await givenSubscription(t, receiver.url());
    await startAlert(t, { type: 'lowLeak' }).expect(201);
    await t.deps.dispatcher.drain();
    const [view] = (await request(t.app).get('/sandbox/deliveries?kind=alert').set(bearer(DEMO_API_KEY)).expect(200))
      .body.deliveries;
    const got = receiver.received.find(
      (r) => r.method === 'POST' && r.headers[DELIVERY_ID_HEADER.toLowerCase()] === view.deliveryId,
    )!;
    expect(Object.keys(view.requestHeaders).sort()).toEqual(
      ['Accept', 'Content-Type', 'User-Agent', DELIVERY_ID_HEADER, ATTEMPT_HEADER].sort(),
    );
    for (const [name, value] of Object.entries(view.requestHeaders as Record<string, string>))
      expect(got.headers[name.toLowerCase()]).toBe(value);
  });
});

describe('subscribing the same endpoint twice to one location', () => {
  it('answers the existing subscription rather than a duplicate that would receive every alert twice', async () => {
    const first = await subscribe(receiver.url()).expect(200);
    const second = await subscribe(receiver.url()).expect(200);
    expect(second.body).toEqual(first.body);
    expect((await docOf(t)).subscriptions).toHaveLength(1);
  });

  it('sends a pending one a fresh confirmation, since the partner evidently lost the first', async () => {
    await subscribe(receiver.url()).expect(200);
    await t.deps.dispatcher.drain();
    await subscribe(receiver.url()).expect(200);
    await t.deps.dispatcher.drain();
    const confirmations = receiver.received
      .filter((r) => r.method === 'POST')
      .map((r) => r.body as { confirmationToken: string });
    expect(confirmations).toHaveLength(2);
    expect(confirmations[0]!.confirmationToken).not.toBe(confirmations[1]!.confirmationToken);
  });

  it('sends a confirmed one nothing more, and keeps it confirmed', async () => {
    const created = await subscribe(receiver.url()).expect(200);
    await t.deps.dispatcher.drain();
    const { confirmationUrl } = receiver.received.find((r) => r.method === 'POST')!.body as { confirmationUrl: string };
    await request(t.app)
      .get(new URL(confirmationUrl).pathname + new URL(confirmationUrl).search)
      .set(bearer(DEMO_API_KEY))
      .expect(200);
    const before = receiver.received.length;
    const again = await subscribe(receiver.url()).expect(200);
    await t.deps.dispatcher.drain();
    expect(again.body).toEqual({ ...created.body, status: 'confirmed' });
    expect(receiver.received).toHaveLength(before);
  });

  it('still subscribes the same endpoint to another location, and another endpoint to the same location', async () => {
    await subscribe(receiver.url()).expect(200);
    await subscribe(receiver.url(), DEMO_LOCATIONS[1]!.locationId).expect(200);
    await subscribe(receiver.url('/other')).expect(200);
    expect((await docOf(t)).subscriptions).toHaveLength(3);
  });
});
