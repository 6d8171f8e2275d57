import { useAppsAndReceivers } from '../helpers/app-and-receiver.js';
import { deferred, eventually } from '../helpers/waiting.js';
import { deliveriesIn, endAlert, givenSubscription, postedBodies, startAlert } from './support.js';

/**
 * A subscription's notifications reach its endpoint in the order of the events: the next is
 * attempted once the one before has its answer, as the clock guide promises ("the order of
 * events is the point"). Other subscriptions are not held up meanwhile.
 */

const { buildApp, startReceiver } = useAppsAndReceivers();

describe("one subscription's notifications", () => {
  it('go one at a time in the order of the events, while another subscription gets its own meanwhile', async () => {
    const t = await buildApp();
    // Two receivers: two origins, so the slots of one never hold up the other.
    const [slow, quick] = [await startReceiver(), await startReceiver()];
    const firstAnswer = deferred();
    slow.script = [{ status: 200, until: firstAnswer.promise }];
    const slowSubscription = await givenSubscription(t, slow.url());
    const quickSubscription = await givenSubscription(t, quick.url());

    const started = await startAlert(t, { type: 'lowLeak' }).expect(201);
    await slow.waitFor(1);
    await endAlert(t, (started.body as { alertId: string }).alertId).expect(200);
    // The quick subscription gets the start and the end, and both are recorded...
    await quick.waitFor(2);
    await eventually(
      async () =>
        (await deliveriesIn(t)).filter((d) => d.subscriptionId === quickSubscription && d.state === 'delivered')
          .length === 2,
    );
    // ...while the slow one's end waits, unattempted, behind its start, which has no answer yet.
    const slowEnd = (await deliveriesIn(t)).find(
      (d) => d.subscriptionId === slowSubscription && (d.payload as { active?: boolean }).active === false,
    );
    expect(slowEnd).toMatchObject({ state: 'pending', attempts: [] });
    expect(slow.received).toHaveLength(1);

    firstAnswer.resolve();
    await t.deps.dispatcher.drain();
    expect(postedBodies<{ active: boolean }>(slow).map((b) => b.active)).toEqual([true, false]);
    expect(postedBodies<{ active: boolean }>(quick).map((b) => b.active)).toEqual([true, false]);
    expect((await deliveriesIn(t)).map((d) => d.state)).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);
  });
});
