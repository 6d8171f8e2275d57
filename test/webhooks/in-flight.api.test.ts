import request from 'supertest';

import { silentLogger } from '../../src/core/logger.js';
import type { DeliveryRecord } from '../../src/store/data.js';
import { Dispatcher, SUBSCRIPTION_DELETED_NOTE } from '../../src/webhooks/index.js';
import { useAppAndReceiver } from '../helpers/app-and-receiver.js';
import { changeDoc, TEST_START } from '../helpers/build-test-app.js';
import { bearer, DEMO_ACCOUNT_ID, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';
import { deferred } from '../helpers/waiting.js';
import { deliveriesIn, givenSubscription, startAlert, storeWithDeliveries } from './support.js';

/**
 * What happens to a delivery when the world changes around one of its attempts: the
 * subscription deleted before the attempt starts or while it is on its way, the account clock
 * moved while the receiver takes its time.
 */

const { t, receiver, rebuildApp } = useAppAndReceiver();

describe('a subscription deleted around an attempt', () => {
  it('sends nothing when the subscription is gone as the attempt starts (deleted, its deliveries not cancelled yet)', async () => {
    // Another subscription of the account stays: the delivery's own is what counts.
    await givenSubscription(t, receiver.url('/other'));
    const subscriptionId = await givenSubscription(t, receiver.url());
    // A due delivery stored without a kick, then the first half of DELETE /v1/subscriptions/{id}:
    // the subscription leaves the document; the delete's cancelPending has not run yet.
    const delivery = t.deps.dispatcher.build(
      {
        accountId: DEMO_ACCOUNT_ID,
        kind: 'alert',
        subscriptionId,
        locationId: DEMO_LOCATION_ID,
        target: receiver.url(),
        payload: { subscriptionId },
      },
      TEST_START.getTime(),
    );
    await t.store.deliveries.add(DEMO_ACCOUNT_ID, [delivery]);
    await changeDoc(
      t,
      (d) => void (d.subscriptions = d.subscriptions.filter((s) => s.subscriptionId !== subscriptionId)),
    );

    await t.deps.dispatcher.drain();

    expect(receiver.received).toEqual([]);
    expect((await deliveriesIn(t)).find((x) => x.deliveryId === delivery.deliveryId)).toMatchObject({
      state: 'failed',
      attempts: [],
      dueAtMs: null,
      note: SUBSCRIPTION_DELETED_NOTE,
    });
  });

  it.each([500, 200])(
    'keeps a delivery cancelled while its attempt was on its way (answered %i): the attempt is recorded, nothing more',
    async (status) => {
      const answer = deferred();
      receiver.script = [{ status, until: answer.promise }];
      const subscriptionId = await givenSubscription(t, receiver.url());
      await startAlert(t, { type: 'lowLeak' }).expect(201);
      await receiver.waitFor(1);

      await request(t.app).delete(`/v1/subscriptions/${subscriptionId}`).set(bearer(DEMO_API_KEY)).expect(200);
      answer.resolve();
      await t.deps.dispatcher.idle();

      const [delivery] = await deliveriesIn(t);
      // Not delivered (a 200), not rescheduled (a 500): cancelled it stays.
      expect(delivery).toMatchObject({ state: 'failed', dueAtMs: null, note: SUBSCRIPTION_DELETED_NOTE });
      expect(delivery!.attempts.map((a) => a.statusCode)).toEqual([status]);
      t.clock.advance(3_600_000);
      await t.deps.dispatcher.drain();
      expect(receiver.received).toHaveLength(1);
    },
  );
});

describe('the account clock moved during an attempt', () => {
  it('schedules the retry from the account clock after the attempt, and records the attempt at its start', async () => {
    const answer = deferred();
    receiver.script = [{ status: 503, until: answer.promise }];
    await givenSubscription(t, receiver.url());
    await startAlert(t, { type: 'lowLeak' }).expect(201);
    await receiver.waitFor(1);

    t.clock.advance(10 * 60_000);
    answer.resolve();
    await t.deps.dispatcher.idle();

    const [delivery] = await deliveriesIn(t);
    const retryAtMs = TEST_START.getTime() + 10 * 60_000 + 1000;
    expect(delivery).toMatchObject({ state: 'pending', dueAtMs: retryAtMs });
    expect(delivery!.attempts.map((a) => a.at)).toEqual([TEST_START.toISOString()]);
  });
});

describe('another replica on the same store', () => {
  it('leaves a delivery the first replica is sending alone, and returns once that attempt is recorded', async () => {
    await givenSubscription(t, receiver.url());
    const answer = deferred();
    receiver.script = [{ status: 200, until: answer.promise }];
    await startAlert(t, { type: 'lowLeak' }).expect(201);
    await receiver.waitFor(1);
    // The second replica says when it has found the delivery due yet claimed, and is waiting for it.
    const waiting = deferred();
    const store = storeWithDeliveries(t.store, {
      nextDueMs: (accountId: string) => (waiting.resolve(), t.store.deliveries.nextDueMs(accountId)),
    });
    const replica = new Dispatcher(
      { store, clock: t.clock, ids: t.deps.ids, logger: silentLogger, sender: t.deps.sender },
      t.deps.config.webhook,
    );
    const round = replica.runDue(DEMO_ACCOUNT_ID).then(async () => (await deliveriesIn(t)).map((d) => d.state));
    await waiting.promise;
    answer.resolve();
    expect(await round).toEqual(['delivered']);
    expect(receiver.received).toHaveLength(1);
  });
});

describe('drain for one account (what tests await)', () => {
  it('returns once nothing of the account is due now: a retry due later waits for the clock', async () => {
    await rebuildApp({ env: { WEBHOOK_MAX_ATTEMPTS: '2', WEBHOOK_BACKOFF_MS: '60000' } });
    receiver.script = [{ status: 500 }];
    await givenSubscription(t, receiver.url());
    await startAlert(t, { type: 'lowLeak' }).expect(201);
    await t.deps.dispatcher.drain(DEMO_ACCOUNT_ID);
    expect((await deliveriesIn(t)).map((d) => [d.state, d.attempts.length])).toEqual([['pending', 1]]);
    t.clock.advance(60_000);
    await t.deps.dispatcher.drain(DEMO_ACCOUNT_ID);
    expect((await deliveriesIn(t)).map((d) => [d.state, d.attempts.length])).toEqual([['delivered', 2]]);
    expect(receiver.received).toHaveLength(2);
  });
});

describe('kicks', () => {
  const alertTo = (dispatcher: Dispatcher, subscriptionId: string, n: number): DeliveryRecord =>
    dispatcher.build(
      {
        accountId: DEMO_ACCOUNT_ID,
        kind: 'alert',
        subscriptionId,
        locationId: DEMO_LOCATION_ID,
        target: receiver.url(),
        payload: { n },
      },
      TEST_START.getTime(),
    );

  it('kickAll starts the due deliveries of the accounts it is given, and no kick starts any once stopped', async () => {
    const subscriptionId = await givenSubscription(t, receiver.url());
    await t.store.deliveries.add(DEMO_ACCOUNT_ID, [alertTo(t.deps.dispatcher, subscriptionId, 1)]);
    t.deps.dispatcher.kickAll([DEMO_ACCOUNT_ID]);
    await t.deps.dispatcher.idle();
    expect(receiver.bodies()).toEqual([{ n: 1 }]);
    t.deps.dispatcher.stop();
    await t.store.deliveries.add(DEMO_ACCOUNT_ID, [alertTo(t.deps.dispatcher, subscriptionId, 2)]);
    t.deps.dispatcher.kickAll([DEMO_ACCOUNT_ID]);
    t.deps.dispatcher.kick(DEMO_ACCOUNT_ID);
    await t.deps.dispatcher.idle();
    expect(receiver.bodies()).toEqual([{ n: 1 }]);
  });

  it('a kick while a round takes its last look at the queue makes one more round', async () => {
    const subscriptionId = await givenSubscription(t, receiver.url());
    let lateWork = false;
    // As the round finds nothing more due and is about to end, new work arrives with its kick.
    const store = storeWithDeliveries(t.store, {
      nextDueMs: async (accountId: string) => {
        const next = await t.store.deliveries.nextDueMs(accountId);
        if (next === null && !lateWork) {
          lateWork = true;
          await t.store.deliveries.add(accountId, [alertTo(dispatcher, subscriptionId, 2)]);
          dispatcher.kick(accountId);
        }
        return next;
      },
    });
    const dispatcher = new Dispatcher(
      { store, clock: t.clock, ids: t.deps.ids, logger: silentLogger, sender: t.deps.sender },
      t.deps.config.webhook,
    );
    await store.deliveries.add(DEMO_ACCOUNT_ID, [alertTo(dispatcher, subscriptionId, 1)]);
    dispatcher.kick(DEMO_ACCOUNT_ID);
    await dispatcher.idle();
    expect(lateWork).toBe(true);
    expect(receiver.bodies()).toEqual([{ n: 1 }, { n: 2 }]);
  });
});
