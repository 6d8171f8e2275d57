import { basename } from 'node:path';

import request from 'supertest';

import { scenarioFiles } from '../../src/scenarios/catalog.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';
import { ALERT_PAYLOAD_KEYS, givenConfirmedSubscription, givenPendingSubscription } from '../helpers/subscriptions.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { advance, notificationsOf } from './given.js';

// Every file in scenarios/ is played end to end, so a new scenario file is tested as soon as it is added.
const files = await scenarioFiles('scenarios');

let t: TestApp;
let confirmed: WebhookReceiver;
let pending: WebhookReceiver;
beforeEach(async () => {
  t = await buildTestApp();
  [confirmed, pending] = await Promise.all([WebhookReceiver.start(), WebhookReceiver.start()]);
});
afterEach(async () => {
  await t.deps.dispatcher.idle();
  await Promise.all([confirmed.close(), pending.close()]);
});

it('ships at least the four documented scenarios', () => {
  expect(files.map((f) => basename(f, '.json'))).toEqual(
    expect.arrayContaining(['slow-leak-escalates', 'away-leak', 'cold-snap', 'flapping-alert']),
  );
});

describe.each(files.map((file) => [basename(file, '.json')]))('scenario %s', (name) => {
  it('sends each confirmed subscription exactly the notifications its expect block lists, and nothing to a pending one', async () => {
    const scenario = t.deps.scenarios.get(name);
    if (!scenario) throw new Error(`scenario ${name} is not loaded`);
    const subscriptionId = await givenConfirmedSubscription(t, confirmed, DEMO_LOCATION_ID);
    await givenPendingSubscription(t, pending, DEMO_LOCATION_ID);
    const pendingBefore = pending.received.length;
    const confirmedBefore = confirmed.received.length;

    const run = await request(t.app)
      .post(`/sandbox/scenarios/${name}/runs`)
      .set(bearer(DEMO_API_KEY))
      .send({ locationId: DEMO_LOCATION_ID })
      .expect(201);
    await advance(t, scenario.durationMs / 1000 + 60).expect(200);

    const status = await request(t.app)
      .get(`/sandbox/runs/${run.body.runId as string}`)
      .set(bearer(DEMO_API_KEY))
      .expect(200);
    expect(status.body.state).toBe('completed');
    expect(status.body.log.filter((e: { ok: boolean }) => !e.ok)).toEqual([]);
    // The clock stopped at every step, so each ran at exactly its own virtual time.
    for (const entry of status.body.log as { at: string; dueAt: string }[]) expect(entry.at).toBe(entry.dueAt);

    const received = notificationsOf(confirmed, confirmedBefore);
    // An expectation without peakStatus leaves it unchecked.
    const expected = scenario.expect.notifications;
    expect(
      received.map(({ type, active, peakStatus }, i) => ({
        type,
        active,
        ...(expected[i]?.peakStatus === undefined ? {} : { peakStatus }),
      })),
    ).toEqual(expected);
    for (const n of received) {
      expect(Object.keys(n).sort()).toEqual(ALERT_PAYLOAD_KEYS);
      expect(n.subscriptionId).toBe(subscriptionId);
      if (n.active) expect(n.stopTime).toBe(0);
      else expect(n.stopTime).toBeGreaterThanOrEqual(n.startTime);
    }
    expect(pending.received.length).toBe(pendingBefore);
  });
});
