import request from 'supertest';

import { useAppAndReceiver } from '../helpers/app-and-receiver.js';
import { changeDoc, deliveriesIn, docOf, TEST_START } from '../helpers/build-test-app.js';
import { DEMO_NEW_YORK, DEMO_LOS_ANGELES } from '../helpers/demo-locations.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID, OTHER_API_KEY, OTHER_LOCATION_ID } from '../helpers/demo.js';
import { setHomeAway } from '../helpers/home-away.js';
import { sendRaw } from '../helpers/raw-body.js';
import { ALERT_PAYLOAD_KEYS, givenConfirmedSubscription } from '../helpers/subscriptions.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { endAlert, givenSubscription, postedBodies, startAlert } from '../webhooks/support.js';

/** An alert as the location lists it: the keys of its notification but the location and subscription it went to. */
const PUBLIC_ALERT_KEYS = ALERT_PAYLOAD_KEYS.filter((key) => key !== 'locationId' && key !== 'subscriptionId');
const NOW_S = Math.floor(TEST_START.getTime() / 1000);
const DEMO_DEVICE_ID = DEMO_NEW_YORK.devices[0]!.deviceId;

type Payload = Record<string, unknown>;

const { t, receiver } = useAppAndReceiver();

async function locationAlerts(locationId = DEMO_LOCATION_ID): Promise<Payload[]> {
  const res = await request(t.app).get(`/v1/locations/${locationId}`).set(bearer(DEMO_API_KEY)).expect(200);
  return res.body.alerts as Payload[];
}

describe('starting and ending an alert', () => {
  it('sends a confirmed subscription one start and one end POST with exactly the documented keys', async () => {
    const subscriptionId = await givenConfirmedSubscription(t, receiver);
    const postsBefore = postedBodies(receiver).length;

    const started = await startAlert(t, { type: 'lowLeak', peakValue: 0.4 }).expect(201);
    await t.deps.dispatcher.drain();
    t.clock.advance(600_000);
    await endAlert(t, started.body.alertId as string).expect(200);
    await t.deps.dispatcher.drain();

    const [start, end] = postedBodies(receiver).slice(postsBefore);
    expect(Object.keys(start!).sort()).toEqual(ALERT_PAYLOAD_KEYS);
    expect(Object.keys(end!).sort()).toEqual(ALERT_PAYLOAD_KEYS);
    expect(start).toEqual({
      subscriptionId,
      locationId: DEMO_LOCATION_ID,
      deviceId: DEMO_DEVICE_ID,
      type: 'lowLeak',
      active: true,
      startTime: NOW_S - 300,
      detectedTime: NOW_S,
      stopTime: 0,
      peakValue: 0.4,
      peakStatus: null,
    });
    expect(end).toEqual({ ...start, active: false, stopTime: NOW_S + 600 });
    const alertPosts = receiver.received.filter((r) => r.method === 'POST').slice(postsBefore);
    expect(alertPosts.map((r) => r.headers['content-type'])).toEqual(['application/json', 'application/json']);
  });

  it('answers the alert with its alertId, the outcome and how many notifications were queued', async () => {
    await givenSubscription(t, receiver.url());
    const res = await startAlert(t, { type: 'ambientTemp', peakValue: 33 }).expect(201);
    expect(res.body).toMatchObject({
      outcome: 'started',
      note: null,
      notifications: 1,
      alertId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      locationId: DEMO_LOCATION_ID,
      type: 'ambientTemp',
      active: true,
      peakValue: 33,
      peakStatus: 'too_low',
      stopTime: 0,
      shown: true,
    });
    await t.deps.dispatcher.drain();
  });

  it('sends nothing to a pending subscription, and one notification to each confirmed one', async () => {
    const other = await WebhookReceiver.start();
    try {
      await givenSubscription(t, receiver.url(), { status: 'pending' });
      const confirmedId = await givenSubscription(t, other.url());
      await startAlert(t, { type: 'highLeak' }).expect(201);
      await t.deps.dispatcher.drain();
      expect(receiver.received).toHaveLength(0);
      expect(postedBodies(other)).toEqual([
        expect.objectContaining({ subscriptionId: confirmedId, type: 'highLeak', active: true }),
      ]);
    } finally {
      await other.close();
    }
  });

  it('notifies only the subscriptions of the alert location', async () => {
    await givenSubscription(t, receiver.url(), { locationId: DEMO_LOS_ANGELES.locationId });
    const res = await startAlert(t, { type: 'lowLeak' }).expect(201);
    expect(res.body.notifications).toBe(0);
    await t.deps.dispatcher.drain();
    expect(receiver.received).toHaveLength(0);
  });

  it('shows an active alert in the location alerts with the public keys, and drops it when it ends', async () => {
    const started = await startAlert(t, { type: 'waterTemp', peakValue: 112 }).expect(201);
    const alerts = await locationAlerts();
    expect(alerts).toHaveLength(1);
    expect(Object.keys(alerts[0]!).sort()).toEqual(PUBLIC_ALERT_KEYS);
    expect(alerts[0]).toMatchObject({
      type: 'waterTemp',
      active: true,
      peakValue: 112,
      peakStatus: 'too_high',
      stopTime: 0,
    });
    await endAlert(t, started.body.alertId as string).expect(200);
    expect(await locationAlerts()).toEqual([]);
  });

  it('refuses to end an alert twice with 409', async () => {
    const started = await startAlert(t, { type: 'humidity' }).expect(201);
    await endAlert(t, started.body.alertId as string).expect(200);
    const res = await endAlert(t, started.body.alertId as string).expect(409);
    expect(res.body.error).toBe('alert_already_ended');
  });
});

describe('the leak rules through the API', () => {
  it('escalates a low leak to high, then falls back to low when the high leak ends, notifying each visible change', async () => {
    await givenSubscription(t, receiver.url());
    const low = await startAlert(t, { type: 'lowLeak', peakValue: 0.5 }).expect(201);
    t.clock.advance(3_600_000);
    const high = await startAlert(t, { type: 'highLeak', peakValue: 9 }).expect(201);
    expect(high.body).toMatchObject({ outcome: 'escalated', type: 'highLeak' });
    expect((await locationAlerts()).map((a) => a.type)).toEqual(['highLeak']);

    const ignored = await startAlert(t, { type: 'lowLeak' }).expect(200);
    expect(ignored.body).toMatchObject({ outcome: 'ignored', alertId: high.body.alertId, notifications: 0 });

    t.clock.advance(1_800_000);
    const ended = await endAlert(t, high.body.alertId as string).expect(200);
    expect(ended.body.resumed).toMatchObject({
      type: 'lowLeak',
      active: true,
      peakValue: 0.5,
      stopTime: 0,
      shown: true,
    });
    expect((await locationAlerts()).map((a) => a.type)).toEqual(['lowLeak']);

    // Ending the original low leak ends the low leak that resumed.
    t.clock.advance(600_000);
    const repaired = await endAlert(t, low.body.alertId as string).expect(200);
    expect(repaired.body.alertId).toBe(ended.body.resumed.alertId);
    expect(await locationAlerts()).toEqual([]);

    await t.deps.dispatcher.drain();
    expect(postedBodies(receiver).map((b) => [b.type, b.active])).toEqual([
      ['lowLeak', true],
      ['highLeak', true],
      ['highLeak', false],
      ['lowLeak', true],
      ['lowLeak', false],
    ]);
  });

  it('stops the low leak flow where the high leak starts, so readings never count both', async () => {
    await startAlert(t, { type: 'lowLeak' }).expect(201);
    t.clock.advance(3_600_000);
    const high = await startAlert(t, { type: 'highLeak' }).expect(201);
    const alerts = (await docOf(t)).alerts.map((a) => ({
      type: a.type,
      startTime: a.startTime,
      stopTime: a.stopTime,
      flowGpm: a.flowGpm,
    }));
    expect(alerts).toEqual([
      { type: 'lowLeak', startTime: NOW_S - 300, stopTime: high.body.startTime, flowGpm: 0.5 },
      { type: 'highLeak', startTime: NOW_S + 3600 - 300, stopTime: 0, flowGpm: 6 },
    ]);
  });

  it('when the low leak is repaired under a high one, ends it silently and does not fall back', async () => {
    await givenSubscription(t, receiver.url());
    const low = await startAlert(t, { type: 'lowLeak' }).expect(201);
    const high = await startAlert(t, { type: 'highLeak' }).expect(201);
    const repaired = await endAlert(t, low.body.alertId as string).expect(200);
    expect(repaired.body).toMatchObject({ active: false, notifications: 0, shown: false });
    const ended = await endAlert(t, high.body.alertId as string).expect(200);
    expect(ended.body.resumed).toBeNull();
    await t.deps.dispatcher.drain();
    expect(postedBodies(receiver).map((b) => [b.type, b.active])).toEqual([
      ['lowLeak', true],
      ['highLeak', true],
      ['highLeak', false],
    ]);
  });

  it('in away mode raises a leak as awayLeak with a 15 s dwell', async () => {
    await setHomeAway(t, 'away').expect(200);
    const res = await startAlert(t, { type: 'lowLeak', peakValue: 0.3 }).expect(201);
    expect(res.body).toMatchObject({ type: 'awayLeak', peakValue: 0.3, startTime: NOW_S - 15, detectedTime: NOW_S });
    expect(res.body.note).toContain('away mode');
  });
});

describe('validation and scoping', () => {
  it.each([
    [{ type: 'flood' }, 'type'],
    [{}, 'type'],
    [{ type: 'lowLeak', severity: 'bad' }, 'severity'],
    [{ type: 'lowLeak', flowGpm: 1 }, 'flowGpm'],
    [{ type: 'lowLeak', peakValue: 40 }, 'peakValue'],
    [{ type: 'ambientTemp', peakStatus: 'too_high' }, 'peakStatus'],
    [{ type: 'lowLeak', deviceId: DEMO_LOS_ANGELES.devices[0]!.deviceId }, 'deviceId'],
    [['lowLeak'], 'body'],
  ])('refuses %j with a 400 naming %s and stores nothing', async (body, parameter) => {
    await givenSubscription(t, receiver.url());
    const res = await startAlert(t, body as Record<string, unknown>).expect(400);
    expect(res.body).toMatchObject({ error: 'invalid_parameter', parameter });
    expect(res.body.message).toContain(parameter);
    expect([(await docOf(t)).alerts.length, (await deliveriesIn(t)).length]).toEqual([0, 0]);
  });

  it('refuses a body that is not JSON with 415', async () => {
    const res = await sendRaw(
      t,
      'post',
      `/sandbox/locations/${DEMO_LOCATION_ID}/alerts`,
      'text/plain',
      'lowLeak',
    ).expect(415);
    expect(res.body.error).toBe('unsupported_media_type');
  });

  it('answers 404 for a location of another account, and for its alerts', async () => {
    await startAlert(t, { type: 'lowLeak' }, OTHER_LOCATION_ID).expect(404);
    const theirs = await startAlert(t, { type: 'lowLeak' }, OTHER_LOCATION_ID, OTHER_API_KEY).expect(201);
    await endAlert(t, theirs.body.alertId as string, OTHER_LOCATION_ID).expect(404);
    await endAlert(t, theirs.body.alertId as string, DEMO_LOCATION_ID).expect(404);
    await request(t.app).get(`/sandbox/locations/${OTHER_LOCATION_ID}/alerts`).set(bearer(DEMO_API_KEY)).expect(404);
  });

  it('answers 404 for an unknown alert id', async () => {
    const res = await endAlert(t, 'no-such-alert').expect(404);
    expect(res.body.error).toBe('not_found');
  });

  it.each([
    ['delete', `/sandbox/locations/${DEMO_LOCATION_ID}/alerts`, 'GET, POST, HEAD'],
    ['get', `/sandbox/locations/${DEMO_LOCATION_ID}/alerts/x/end`, 'POST'],
    ['put', `/sandbox/deliveries`, 'GET, HEAD'],
  ] as const)('answers %s %s with 405 and Allow', async (method, path, allow) => {
    const res = await request(t.app)[method](path).set(bearer(DEMO_API_KEY)).expect(405);
    expect(res.headers.allow).toBe(allow);
  });

  it('lists the location alert history newest first, filterable by active', async () => {
    const first = await startAlert(t, { type: 'lowLeak' }).expect(201);
    await endAlert(t, first.body.alertId as string).expect(200);
    const second = await startAlert(t, { type: 'ambientTemp' }).expect(201);
    const all = await request(t.app)
      .get(`/sandbox/locations/${DEMO_LOCATION_ID}/alerts`)
      .set(bearer(DEMO_API_KEY))
      .expect(200);
    expect(all.body).toMatchObject({ page: 1, total: 2 });
    expect(all.body.alerts.map((a: Payload) => a.alertId)).toEqual([second.body.alertId, first.body.alertId]);
    const active = await request(t.app)
      .get(`/sandbox/locations/${DEMO_LOCATION_ID}/alerts?active=true`)
      .set(bearer(DEMO_API_KEY))
      .expect(200);
    expect(active.body.alerts.map((a: Payload) => a.alertId)).toEqual([second.body.alertId]);
    const one = await request(t.app)
      .get(`/sandbox/locations/${DEMO_LOCATION_ID}/alerts/${first.body.alertId}`)
      .set(bearer(DEMO_API_KEY))
      .expect(200);
    expect(one.body).toMatchObject({ alertId: first.body.alertId, active: false, stopTime: NOW_S });
  });

  it('dates alerts on the account virtual clock', async () => {
    await changeDoc(t, (d) => {
      d.clock = { offsetMs: 86_400_000, frozenAtMs: null };
    });
    const res = await startAlert(t, { type: 'lowLeak' }).expect(201);
    expect(res.body.detectedTime).toBe(NOW_S + 86_400);
  });
});
