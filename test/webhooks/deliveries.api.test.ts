import request from 'supertest';

import { useAppAndReceiver } from '../helpers/app-and-receiver.js';
import { TEST_START } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID, OTHER_API_KEY } from '../helpers/demo.js';
import { postSubscription } from '../helpers/subscription-request.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { deliveriesIn, givenSubscription, startAlert } from './support.js';

const DELIVERY_KEYS = [
  'attempts',
  'createdAt',
  'deliveryId',
  'drill',
  'kind',
  'locationId',
  'method',
  'nextAttemptAt',
  'note',
  'payload',
  'redeliveryOf',
  'requestHeaders',
  'state',
  'subscriptionId',
  'target',
];
const ATTEMPT_KEYS = ['at', 'error', 'latencyMs', 'responseExcerpt', 'statusCode', 'warnings'];

type Delivery = Record<string, unknown> & { deliveryId: string; attempts: Record<string, unknown>[] };

const { t, receiver, rebuildApp } = useAppAndReceiver();

const list = (query = '', key = DEMO_API_KEY) => request(t.app).get(`/sandbox/deliveries${query}`).set(bearer(key));

async function createSubscription(endpoint = receiver.url()): Promise<string> {
  const res = await postSubscription(t, endpoint).expect(200);
  return res.body.subscriptionId as string;
}

describe('GET /sandbox/deliveries', () => {
  it('lists every delivery of the account, newest first, with its target, payload, state and attempts', async () => {
    await givenSubscription(t, receiver.url());
    await startAlert(t, { type: 'lowLeak' }).expect(201);
    await t.deps.dispatcher.drain();
    const subscriptionId = await createSubscription(receiver.url('/second'));
    await t.deps.dispatcher.drain();

    const res = await list().expect(200);
    expect(res.body).toMatchObject({ page: 1, perPage: 50, pageCount: 1, total: 3 });
    const deliveries = res.body.deliveries as Delivery[];
    expect(deliveries.map((x) => x.kind)).toEqual(['receiver_check', 'confirmation', 'alert']);
    for (const x of deliveries) {
      expect(Object.keys(x).sort()).toEqual(DELIVERY_KEYS);
      expect(x.state).toBe('delivered');
      for (const a of x.attempts) expect(Object.keys(a).sort()).toEqual(ATTEMPT_KEYS);
    }
    expect(deliveries[1]).toMatchObject({
      kind: 'confirmation',
      subscriptionId,
      locationId: DEMO_LOCATION_ID,
      method: 'POST',
      target: receiver.url('/second'),
      payload: {
        confirmationUrl: expect.stringContaining(`/v1/subscriptions/${subscriptionId}/confirm?confirmationToken=`),
        confirmationToken: expect.any(String),
      },
      createdAt: TEST_START.toISOString(),
      nextAttemptAt: null,
      redeliveryOf: null,
      note: null,
      attempts: [
        {
          at: TEST_START.toISOString(),
          statusCode: 200,
          latencyMs: expect.any(Number),
          error: null,
          responseExcerpt: '{"ok":true}',
          warnings: [],
        },
      ],
    });
    expect(deliveries[0]).toMatchObject({ kind: 'receiver_check', method: 'GET', payload: null, subscriptionId });
  });

  it('filters by subscriptionId, state and kind, and pages', async () => {
    const down = await WebhookReceiver.start();
    try {
      down.fallback = { status: 500 };
      const okId = await givenSubscription(t, receiver.url());
      const downId = await givenSubscription(t, down.url());
      await startAlert(t, { type: 'lowLeak' }).expect(201);
      await t.deps.dispatcher.drain();

      const bySubscription = await list(`?subscriptionId=${downId}`).expect(200);
      expect(bySubscription.body.deliveries.map((x: Delivery) => x.subscriptionId)).toEqual([downId]);
      const pending = await list('?state=pending').expect(200);
      expect(pending.body.deliveries.map((x: Delivery) => x.subscriptionId)).toEqual([downId]);
      const delivered = await list('?state=delivered&kind=alert').expect(200);
      expect(delivered.body.deliveries.map((x: Delivery) => x.subscriptionId)).toEqual([okId]);
      const none = await list('?kind=confirmation').expect(200);
      expect(none.body).toMatchObject({ total: 0, deliveries: [] });
      const paged = await list('?perPage=1&page=2').expect(200);
      expect(paged.body).toMatchObject({ page: 2, perPage: 1, pageCount: 2, total: 2 });
      expect(paged.body.deliveries).toHaveLength(1);
    } finally {
      await t.deps.dispatcher.idle();
      await down.close();
    }
  });

  it.each([
    ['?state=done', 'state'],
    ['?kind=sms', 'kind'],
    ['?perPage=500', 'perPage'],
    ['?status=failed', 'status'],
    ['?state=failed&state=pending', 'state'],
  ])('refuses %s with a 400 naming %s', async (query, parameter) => {
    const res = await list(query).expect(400);
    expect(res.body).toMatchObject({ error: 'invalid_parameter', parameter });
  });

  it('shows another account nothing of this account', async () => {
    await givenSubscription(t, receiver.url());
    await startAlert(t, { type: 'lowLeak' }).expect(201);
    await t.deps.dispatcher.drain();
    const [delivery] = await deliveriesIn(t);
    const theirs = await list('', OTHER_API_KEY).expect(200);
    expect(theirs.body.total).toBe(0);
    await request(t.app).get(`/sandbox/deliveries/${delivery!.deliveryId}`).set(bearer(OTHER_API_KEY)).expect(404);
    await request(t.app)
      .post(`/sandbox/deliveries/${delivery!.deliveryId}/redeliver`)
      .set(bearer(OTHER_API_KEY))
      .expect(404);
  });
});

describe('POST /sandbox/deliveries/{id}/redeliver', () => {
  it('sends a failed delivery again as a new delivery that points at the original', async () => {
    await rebuildApp({ env: { WEBHOOK_MAX_ATTEMPTS: '1' } });
    receiver.script = [{ status: 500 }];
    await givenSubscription(t, receiver.url());
    await startAlert(t, { type: 'ambientTemp' }).expect(201);
    await t.deps.dispatcher.drain();
    const [failed] = await deliveriesIn(t);
    expect(failed!.state).toBe('failed');

    const res = await request(t.app)
      .post(`/sandbox/deliveries/${failed!.deliveryId}/redeliver`)
      .set(bearer(DEMO_API_KEY))
      .expect(201);
    expect(res.body).toMatchObject({
      redeliveryOf: failed!.deliveryId,
      state: 'pending',
      payload: failed!.payload,
      target: failed!.target,
    });
    await t.deps.dispatcher.drain();
    const again = await request(t.app)
      .get(`/sandbox/deliveries/${res.body.deliveryId}`)
      .set(bearer(DEMO_API_KEY))
      .expect(200);
    expect(again.body).toMatchObject({ state: 'delivered', attempts: [expect.objectContaining({ statusCode: 200 })] });
    expect(receiver.bodies()).toEqual([failed!.payload, failed!.payload]);
  });

  it('answers 404 for an unknown delivery and 400 for a body field it does not take, naming it', async () => {
    await request(t.app).post('/sandbox/deliveries/nope/redeliver').set(bearer(DEMO_API_KEY)).expect(404);
    await givenSubscription(t, receiver.url());
    await startAlert(t, { type: 'lowLeak' }).expect(201);
    const [delivery] = await deliveriesIn(t);
    const res = await request(t.app)
      .post(`/sandbox/deliveries/${delivery!.deliveryId}/redeliver`)
      .set(bearer(DEMO_API_KEY))
      .send({ target: 'x' })
      .expect(400);
    expect(res.body).toMatchObject({
      parameter: 'target',
      message: 'Unknown field "target"; redeliver takes only sameDeliveryId',
    });
  });
});

describe('receiver checks', () => {
  it('checks with a GET after the confirmation POST, and records a healthy receiver with no warnings', async () => {
    const subscriptionId = await createSubscription();
    await t.deps.dispatcher.drain();
    expect(receiver.received.map((r) => r.method)).toEqual(['POST', 'GET']);
    const check = (await deliveriesIn(t)).find((x) => x.kind === 'receiver_check')!;
    expect(check).toMatchObject({
      subscriptionId,
      state: 'delivered',
      method: 'GET',
      attempts: [expect.objectContaining({ statusCode: 200, warnings: [] })],
    });
  });

  it('flags a receiver that refuses GET, once, with the production rule in the warning', async () => {
    receiver.script = [{ status: 200 }, { status: 405, body: 'Method Not Allowed', contentType: 'text/plain' }];
    await createSubscription();
    await t.deps.dispatcher.drain();
    t.clock.advance(60_000);
    await t.deps.dispatcher.drain();
    const check = (await deliveriesIn(t)).find((x) => x.kind === 'receiver_check')!;
    expect(check.state).toBe('failed');
    expect(check.attempts).toEqual([
      expect.objectContaining({
        statusCode: 405,
        error: 'HTTP 405',
        responseExcerpt: 'Method Not Allowed',
        warnings: ['GET answered 405: production requires the endpoint to answer GET with 2xx and a JSON body'],
      }),
    ]);
    expect(receiver.received.filter((r) => r.method === 'GET')).toHaveLength(1);
  });

  it('flags a receiver that answers GET with something other than JSON', async () => {
    receiver.script = [{ status: 200 }, { status: 200, body: '<html>hi</html>', contentType: 'text/html' }];
    await createSubscription();
    await t.deps.dispatcher.drain();
    const check = (await deliveriesIn(t)).find((x) => x.kind === 'receiver_check')!;
    expect(check.state).toBe('delivered');
    expect(check.attempts[0]!.warnings).toEqual([
      'GET answered 200 but its body is not JSON: production requires the endpoint to answer GET with JSON',
    ]);
  });

  it('flags a confirmation POST that fails, and retries it', async () => {
    receiver.script = [{ status: 404, body: 'nope', contentType: 'text/plain' }];
    await createSubscription();
    await t.deps.dispatcher.drain();
    const confirmation = async () => (await deliveriesIn(t)).find((x) => x.kind === 'confirmation')!;
    expect(await confirmation()).toMatchObject({
      state: 'pending',
      attempts: [
        expect.objectContaining({
          statusCode: 404,
          warnings: ['POST answered 404: production requires the endpoint to answer POST with 2xx and a JSON body'],
        }),
      ],
    });
    t.clock.advance(1000);
    await t.deps.dispatcher.drain();
    expect((await confirmation()).state).toBe('delivered');
    // The GET check follows the first attempt only, not the retry.
    expect((await deliveriesIn(t)).filter((x) => x.kind === 'receiver_check')).toHaveLength(1);
  });
});

describe('deleting a subscription', () => {
  it('cancels its pending deliveries, with a note saying why', async () => {
    receiver.fallback = { status: 500 };
    const subscriptionId = await givenSubscription(t, receiver.url());
    await startAlert(t, { type: 'lowLeak' }).expect(201);
    await t.deps.dispatcher.drain();
    await request(t.app).delete(`/v1/subscriptions/${subscriptionId}`).set(bearer(DEMO_API_KEY)).expect(200);
    const [delivery] = await deliveriesIn(t);
    expect(delivery).toMatchObject({
      state: 'failed',
      dueAtMs: null,
      note: 'cancelled: the subscription was deleted before this delivery succeeded',
    });
    t.clock.advance(60_000);
    await t.deps.dispatcher.drain();
    expect(receiver.received).toHaveLength(1);
  });
});

describe('the dispatcher seam for the clock', () => {
  it('reports the next due instant and runs one account at a time', async () => {
    receiver.script = [{ status: 500 }];
    await givenSubscription(t, receiver.url());
    await startAlert(t, { type: 'lowLeak' }).expect(201);
    const accountId = (await deliveriesIn(t))[0]!.accountId;
    expect(await t.deps.dispatcher.nextDueMs(accountId)).toBe(TEST_START.getTime());
    await t.deps.dispatcher.runDue(accountId);
    expect((await deliveriesIn(t))[0]!.attempts).toHaveLength(1);
    expect(await t.deps.dispatcher.nextDueMs(accountId)).toBe(TEST_START.getTime() + 1000);
    t.clock.advance(1000);
    await t.deps.dispatcher.runDue(accountId);
    expect((await deliveriesIn(t))[0]!.state).toBe('delivered');
    expect(await t.deps.dispatcher.nextDueMs(accountId)).toBeNull();
  });
});
