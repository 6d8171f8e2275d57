import { hostname } from 'node:os';

import { ServiceUnavailableError } from '../../src/core/errors.js';
import type { DeliveryRecord } from '../../src/store/data.js';
import { Dispatcher } from '../../src/webhooks/index.js';
import type { WebhookSender } from '../../src/webhooks/sender.js';
import { TEST_START } from '../helpers/build-test-app.js';
import { DEMO_ACCOUNT_ID, DEMO_LOCATION_ID } from '../helpers/demo.js';
import { type LoggedLine, recordingLogger } from '../helpers/recording-logger.js';
import { useTestApp } from '../helpers/use-test-app.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { deliveriesIn, givenSubscription, storeWithDeliveries } from './support.js';

/**
 * What the dispatcher does when its own work fails: a round the store cannot serve, an attempt
 * that throws. It logs what an operator must see, keeps quiet about a store that is away (the
 * health check says so), and the delivery stays in the queue for the next round.
 */

const t = useTestApp();

async function storedAlert(dispatcher: Dispatcher): Promise<DeliveryRecord> {
  const subscriptionId = await givenSubscription(t, 'https://partner.test/hooks');
  const delivery = dispatcher.build(
    {
      accountId: DEMO_ACCOUNT_ID,
      kind: 'alert',
      subscriptionId,
      locationId: DEMO_LOCATION_ID,
      target: 'https://partner.test/hooks',
      payload: {},
    },
    TEST_START.getTime(),
  );
  await t.store.deliveries.add(DEMO_ACCOUNT_ID, [delivery]);
  return delivery;
}

describe('a round the store cannot serve', () => {
  it.each([
    [
      'an error',
      new Error('disk on fire'),
      [
        {
          level: 'error',
          msg: 'webhook dispatch failed',
          fields: { accountId: DEMO_ACCOUNT_ID, err: expect.objectContaining({ message: 'disk on fire' }) },
        },
      ],
    ],
    ['a store that is away (ServiceUnavailable)', new ServiceUnavailableError('Redis does not answer'), []],
  ])('with %s is logged as such, and the delivery waits in the queue', async (_what, failure, logged) => {
    const lines: LoggedLine[] = [];
    const store = storeWithDeliveries(t.store, { due: () => Promise.reject(failure) });
    const dispatcher = new Dispatcher(
      { store, clock: t.clock, ids: t.deps.ids, logger: recordingLogger(lines), sender: t.deps.sender },
      t.deps.config.webhook,
    );
    const delivery = await storedAlert(dispatcher);
    dispatcher.kick(DEMO_ACCOUNT_ID);
    await dispatcher.idle();
    expect(lines).toEqual(logged);
    expect((await deliveriesIn(t)).map((d) => [d.deliveryId, d.state, d.attempts.length])).toEqual([
      [delivery.deliveryId, 'pending', 0],
    ]);
  });
});

describe('an attempt that throws', () => {
  it('is logged with its delivery, which stays claimed until its lease ends', async () => {
    const lines: LoggedLine[] = [];
    const sender: WebhookSender = { send: () => Promise.reject(new Error('sender bug')) };
    const logger = recordingLogger(lines);
    const dispatcher = new Dispatcher(
      { store: t.store, clock: t.clock, ids: t.deps.ids, logger, sender },
      t.deps.config.webhook,
    );
    // Stopped once the crash is logged: the round, which would wait out the lease, ends.
    logger.error = (msg, fields) => {
      lines.push({ level: 'error', msg, fields });
      dispatcher.stop();
    };
    const delivery = await storedAlert(dispatcher);
    dispatcher.kick(DEMO_ACCOUNT_ID);
    await dispatcher.idle();
    expect(lines).toEqual([
      {
        level: 'error',
        msg: 'webhook attempt crashed',
        fields: { deliveryId: delivery.deliveryId, err: expect.objectContaining({ message: 'sender bug' }) },
      },
    ]);
    expect(await t.store.deliveries.due(DEMO_ACCOUNT_ID, TEST_START.getTime(), 10)).toEqual([]);
  });
});

describe('a round stopped as it claims', () => {
  it('gives its claims back at once and sends nothing', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const subscriptionId = await givenSubscription(t, receiver.url());
      const store = storeWithDeliveries(t.store, {
        claim: (...args: Parameters<typeof t.store.deliveries.claim>) => {
          dispatcher.stop();
          return t.store.deliveries.claim(...args);
        },
      });
      const dispatcher = new Dispatcher(
        { store, clock: t.clock, ids: t.deps.ids, logger: recordingLogger([]), sender: t.deps.sender },
        t.deps.config.webhook,
      );
      const delivery = dispatcher.build(
        {
          accountId: DEMO_ACCOUNT_ID,
          kind: 'alert',
          subscriptionId,
          locationId: DEMO_LOCATION_ID,
          target: receiver.url(),
          payload: {},
        },
        TEST_START.getTime(),
      );
      await t.store.deliveries.add(DEMO_ACCOUNT_ID, [delivery]);
      dispatcher.kick(DEMO_ACCOUNT_ID);
      await dispatcher.idle();
      expect(receiver.received).toEqual([]);
      // Given back: due now for the next replica, not held until the lease ends.
      expect(
        (await t.store.deliveries.due(DEMO_ACCOUNT_ID, TEST_START.getTime(), 10)).map((d) => d.deliveryId),
      ).toEqual([delivery.deliveryId]);
    } finally {
      await receiver.close();
    }
  });
});

describe('the owner name of a dispatcher', () => {
  it('names the host and process, and differs between two dispatchers of one process (replicas claim under it)', () => {
    const options = t.deps.config.webhook;
    const deps = {
      store: t.store,
      clock: t.clock,
      ids: t.deps.ids,
      logger: recordingLogger([]),
      sender: t.deps.sender,
    };
    const [one, two] = [new Dispatcher(deps, options), new Dispatcher(deps, options)];
    expect(one.owner).toMatch(new RegExp(`^${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${process.pid}:.+$`));
    expect(two.owner).not.toBe(one.owner);
  });
});
