import request from 'supertest';

import { useAppAndReceiver } from '../helpers/app-and-receiver.js';
import { docOf } from '../helpers/build-test-app.js';
import { givenDashboardToken } from '../helpers/dashboard-token.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';
import { injectFault } from '../helpers/faults.js';
import { loginAndGetToken } from '../helpers/oauth.js';
import { ALERT_PAYLOAD_KEYS, givenConfirmedSubscription } from '../helpers/subscriptions.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { endAlert, startAlert } from '../webhooks/support.js';
import { drill, get } from './support.js';

/** POST /sandbox/readiness/drills: each drill's effect through the existing controls, and its refusals. */

const { t, receiver } = useAppAndReceiver();

const NAMES = 'expire-tokens, rate-limit, server-errors, duplicate-delivery, out-of-order';

describe('a drill request', () => {
  it.each([
    [{ drill: 'flood' }, `drill must be one of ${NAMES}; got "flood"`],
    [{ drill: 7 }, `drill must be one of ${NAMES}; got 7`],
    [{}, `drill must be one of ${NAMES}; got undefined`],
    [{ drill: 'rate-limit', times: 5 }, `Unknown field "times"; a drill request has only drill (${NAMES})`],
    [[], `The request body must be a JSON object such as {"drill": "rate-limit"}; drills: ${NAMES}`],
  ])('%j is a 400 that names the rule', async (body, message) => {
    const res = await request(t.app).post('/sandbox/readiness/drills').set(bearer(DEMO_API_KEY)).send(body).expect(400);
    expect(res.body).toMatchObject({ error: 'invalid_parameter', message: expect.stringContaining(message) });
  });

  it('without a body is refused with the example to send', async () => {
    const res = await request(t.app).post('/sandbox/readiness/drills').set(bearer(DEMO_API_KEY)).expect(415);
    expect(res.body.message).toContain('{"drill":"rate-limit"}');
  });
});

describe('expire-tokens', () => {
  it("expires the account's access tokens now, but not the dashboard's own", async () => {
    const tokens = await loginAndGetToken(t.app);
    const dashboardToken = await givenDashboardToken(t);
    const res = await drill(t, 'expire-tokens').expect(200);
    expect(res.body).toEqual({
      drill: 'expire-tokens',
      effect: '1 access token of the account expired now; the next /v1 call with one answers 403',
      faultIds: [],
      deliveryIds: [],
      expiredTokens: 1,
    });
    const refused = await get(t, '/v1/locations', tokens.access_token).expect(403);
    expect(refused.body.error).toBe('token_expired');
    await get(t, '/v1/locations', dashboardToken).expect(200);
  });

  it('is a 409 when the account holds no live access token', async () => {
    const res = await drill(t, 'expire-tokens').expect(409);
    expect(res.body).toMatchObject({
      error: 'no_access_token',
      message: expect.stringContaining('sign a user in through your OAuth client'),
    });
  });
});

describe('rate-limit and server-errors', () => {
  it('rate-limit answers the next 3 /v1 requests 429 with Retry-After: 2 (through a fault the faults list shows), then lets them through', async () => {
    const res = await drill(t, 'rate-limit').expect(200);
    const faults = (await get(t, '/sandbox/faults').expect(200)).body.faults as Record<string, unknown>[];
    expect(faults).toEqual([
      expect.objectContaining({ faultId: res.body.faultIds[0], status: 429, retryAfter: 2, path: '/v1/*', times: 3 }),
    ]);
    for (const path of ['/v1/locations', `/v1/locations/${DEMO_LOCATION_ID}`, '/v1/subscriptions']) {
      const limited = await get(t, path).expect(429);
      expect(limited.headers['retry-after']).toBe('2');
      expect(limited.body).toMatchObject({
        error: 'rate_limited',
        message: expect.stringContaining('retry after 2 s'),
      });
    }
    await get(t, '/v1/locations').expect(200);
  });

  it('server-errors answers the next 3 /v1 requests 503 without Retry-After, ahead of faults queued before', async () => {
    await injectFault(t, { status: 418, times: 1 }).expect(201);
    await drill(t, 'server-errors').expect(200);
    for (let i = 0; i < 3; i++) {
      const res = await get(t, '/v1/locations').expect(503);
      expect(res.headers['retry-after']).toBeUndefined();
    }
    await get(t, '/v1/locations').expect(418);
  });
});

describe('duplicate-delivery', () => {
  it('sends the latest delivered alert again with the same X-Sandbox-Delivery-Id, shown as a drill in the log', async () => {
    await givenConfirmedSubscription(t, receiver);
    const started = await startAlert(t, { type: 'highLeak' }).expect(201);
    await endAlert(t, started.body.alertId as string).expect(200);
    await t.deps.dispatcher.drain();
    const res = await drill(t, 'duplicate-delivery').expect(200);
    await t.deps.dispatcher.drain();
    const ends = receiver.received.filter(
      (r) => r.method === 'POST' && (r.body as { active?: boolean }).active === false,
    );
    expect(ends).toHaveLength(2);
    expect(ends[1]!.headers['x-sandbox-delivery-id']).toBe(ends[0]!.headers['x-sandbox-delivery-id']);
    expect(ends[1]!.body).toEqual(ends[0]!.body);
    const copy = (await get(t, `/sandbox/deliveries/${res.body.deliveryIds[0] as string}`).expect(200)).body;
    expect(copy).toMatchObject({
      drill: 'duplicate-delivery',
      redeliveryOf: ends[0]!.headers['x-sandbox-delivery-id'],
      requestHeaders: expect.objectContaining({ 'X-Sandbox-Delivery-Id': ends[0]!.headers['x-sandbox-delivery-id'] }),
    });
  });

  it('is a 409 saying what is needed when no alert was delivered yet', async () => {
    await givenConfirmedSubscription(t, receiver);
    const res = await drill(t, 'duplicate-delivery').expect(409);
    expect(res.body).toMatchObject({
      error: 'no_delivered_alert',
      message: expect.stringContaining('start an alert at a location with a confirmed subscription'),
    });
  });

  it('the same duplicate is one call of POST /sandbox/deliveries/{id}/redeliver with sameDeliveryId', async () => {
    await givenConfirmedSubscription(t, receiver);
    await startAlert(t, { type: 'lowLeak' }).expect(201);
    await t.deps.dispatcher.drain();
    const alert = receiver.received.filter((r) => r.method === 'POST').at(-1)!;
    const id = alert.headers['x-sandbox-delivery-id'] as string;
    const copy = await request(t.app)
      .post(`/sandbox/deliveries/${id}/redeliver`)
      .set(bearer(DEMO_API_KEY))
      .send({ sameDeliveryId: true })
      .expect(201);
    expect(copy.body.requestHeaders['X-Sandbox-Delivery-Id']).toBe(id);
    expect(copy.body.drill).toBeNull();
    // A duplicate of the duplicate is still sent as the first one.
    const copyOfCopy = await request(t.app)
      .post(`/sandbox/deliveries/${copy.body.deliveryId as string}/redeliver`)
      .set(bearer(DEMO_API_KEY))
      .send({ sameDeliveryId: true })
      .expect(201);
    expect(copyOfCopy.body).toMatchObject({
      redeliveryOf: copy.body.deliveryId,
      requestHeaders: expect.objectContaining({ 'X-Sandbox-Delivery-Id': id }),
    });
    const fresh = await request(t.app)
      .post(`/sandbox/deliveries/${id}/redeliver`)
      .set(bearer(DEMO_API_KEY))
      .expect(201);
    expect(fresh.body.requestHeaders['X-Sandbox-Delivery-Id']).toBe(fresh.body.deliveryId);
    await request(t.app)
      .post(`/sandbox/deliveries/${id}/redeliver`)
      .set(bearer(DEMO_API_KEY))
      .send({ sameDeliveryId: 'yes' })
      .expect(400);
  });
});

describe('out-of-order', () => {
  it("sends each confirmed subscription an alert end of an alert it never heard start, in the alert payload's shape", async () => {
    await givenConfirmedSubscription(t, receiver);
    const second = await WebhookReceiver.start();
    try {
      await givenConfirmedSubscription(t, second);
      // A pending subscription gets nothing.
      await request(t.app)
        .post(`/v1/locations/${DEMO_LOCATION_ID}/subscriptions`)
        .set(bearer(DEMO_API_KEY))
        .send({ endpoint: receiver.url('/pending') })
        .expect(200);
      const res = await drill(t, 'out-of-order').expect(200);
      expect(res.body.deliveryIds).toHaveLength(2);
      await t.deps.dispatcher.drain();
      for (const r of [receiver, second]) {
        const end = r.received.filter((x) => x.method === 'POST' && x.path.endsWith('/hooks')).at(-1)!;
        expect(Object.keys(end.body as object).sort()).toEqual(ALERT_PAYLOAD_KEYS);
        expect(end.body).toMatchObject({
          locationId: DEMO_LOCATION_ID,
          type: 'lowLeak',
          active: false,
          peakStatus: null,
        });
        const body = end.body as { startTime: number; stopTime: number };
        expect(body.stopTime).toBeGreaterThan(body.startTime);
      }
      // The location shows no alert: it never started.
      const location = (await get(t, `/v1/locations/${DEMO_LOCATION_ID}`).expect(200)).body as { alerts: unknown[] };
      expect(location.alerts).toEqual([]);
      expect((await docOf(t)).alerts).toEqual([]);
    } finally {
      await t.deps.dispatcher.idle();
      await second.close();
    }
  });

  it('is a 409 when no subscription is confirmed', async () => {
    const res = await drill(t, 'out-of-order').expect(409);
    expect(res.body).toMatchObject({ error: 'no_confirmed_subscription' });
  });
});

describe('faults with retryAfter', () => {
  it("sends Retry-After with the fault's answer, and needs a status", async () => {
    await injectFault(t, { status: 503, retryAfter: 30 }).expect(201);
    const res = await get(t, '/v1/locations').expect(503);
    expect(res.headers['retry-after']).toBe('30');
    const refused = await injectFault(t, { delayMs: 10, retryAfter: 5 }).expect(400);
    expect(refused.body.message).toContain('retryAfter goes with a status');
    await injectFault(t, { status: 429, retryAfter: -1 }).expect(400);
  });
});
