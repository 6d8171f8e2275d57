import request from 'supertest';

import { parseScenarioFile, type Scenario } from '../../src/scenarios/schema.js';
import { noticeDueWork } from '../../src/server.js';
import type { DeliveryRecord } from '../../src/store/data.js';
import { useAppAndReceiver } from '../helpers/app-and-receiver.js';
import { deliveriesIn, TEST_START } from '../helpers/build-test-app.js';
import { bearer, DEMO_ACCOUNT_ID, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';
import { givenConfirmedSubscription } from '../helpers/subscriptions.js';
import { advance, notificationsOf, runOf, startScenario } from '../scenarios/given.js';

/** A leak at once that ends at +90 s: with a 60 s backoff, a failed start notification is retried at +60 s, before the end. */
function leakFor90Seconds(): Scenario {
  const text = JSON.stringify({
    description: 'a leak that ends after 90 seconds',
    steps: [
      { at: 0, do: 'startAlert', alert: 'leak', type: 'lowLeak' },
      { at: '+90s', do: 'endAlert', alert: 'leak' },
    ],
    expect: { notifications: [] },
  });
  const { scenario, problems } = parseScenarioFile('inline', 'leak-90s', text);
  if (!scenario) throw new Error(problems.join('\n'));
  return scenario;
}

const { t, receiver } = useAppAndReceiver({
  env: { WEBHOOK_BACKOFF_MS: '60000' },
  overrides: { scenarios: new Map([['leak-90s', leakFor90Seconds()]]) },
});
beforeEach(async () => {
  await givenConfirmedSubscription(t, receiver, DEMO_LOCATION_ID);
});

const at = (seconds: number): string => new Date(TEST_START.getTime() + seconds * 1000).toISOString();
const alertDeliveries = async (): Promise<DeliveryRecord[]> =>
  (await deliveriesIn(t)).filter((x) => x.kind === 'alert');

describe('advancing the clock through a retry and a scenario step', () => {
  it('sends the retry due at +60 s before the step due at +90 s, each at its own virtual time', async () => {
    receiver.script = [{ status: 503, body: '{"error":"busy"}' }];
    const from = receiver.received.length;
    await startScenario(t, 'leak-90s');

    await advance(t, 120).expect(200);

    expect(notificationsOf(receiver, from).map((n) => n.active)).toEqual([true, true, false]);
    const [start, end] = await alertDeliveries();
    expect(start?.payload).toMatchObject({ active: true });
    expect(start?.attempts.map((a) => [a.at, a.statusCode])).toEqual([
      [at(0), 503],
      [at(60), 200],
    ]);
    expect(end?.payload).toMatchObject({ active: false, stopTime: Date.parse(at(90)) / 1000 });
    expect(end?.attempts.map((a) => [a.at, a.statusCode])).toEqual([[at(90), 200]]);
    expect((await request(t.app).get('/sandbox/clock').set(bearer(DEMO_API_KEY))).body.now).toBe(at(120));
  });

  it('stops short of work due after the target and does it on a later advance', async () => {
    receiver.script = [{ status: 500 }];
    const from = receiver.received.length;
    await startScenario(t, 'leak-90s');

    await advance(t, 59).expect(200);
    expect(notificationsOf(receiver, from)).toHaveLength(1);

    await advance(t, 31).expect(200);
    expect(notificationsOf(receiver, from).map((n) => n.active)).toEqual([true, true, false]);
  });

  it('applies a due step in real time when the running clock passes it (the background interval)', async () => {
    const runId = await startScenario(t, 'leak-90s');
    t.clock.advance(89_000);
    await noticeDueWork(t.deps);
    expect((await runOf(t, runId)).state).toBe('running');

    t.clock.advance(1_500);
    await noticeDueWork(t.deps);
    await t.deps.dispatcher.drain(DEMO_ACCOUNT_ID);
    const run = await runOf(t, runId);
    expect(run).toMatchObject({ state: 'completed', nextStepAt: null });
    expect(run.log[1]).toMatchObject({ do: 'endAlert', ok: true, at: at(90.5), dueAt: at(90) });
  });

  it('leaves a frozen clock at its instant, so nothing falls due in real time', async () => {
    await request(t.app).post('/sandbox/clock').set(bearer(DEMO_API_KEY)).send({ frozen: true }).expect(200);
    const runId = await startScenario(t, 'leak-90s');
    t.clock.advance(3_600_000);
    await noticeDueWork(t.deps);
    const run = await runOf(t, runId);
    expect(run).toMatchObject({ state: 'running', nextStep: 1, nextStepAt: at(90) });
  });

  it('after the clock is set back, keeps pending work at its instants until the clock reaches them again', async () => {
    const runId = await startScenario(t, 'leak-90s');
    await request(t.app)
      .post('/sandbox/clock')
      .set(bearer(DEMO_API_KEY))
      .send({ now: at(-3600) })
      .expect(200);
    await advance(t, 3600 + 89).expect(200);
    expect((await runOf(t, runId)).nextStep).toBe(1);
    await advance(t, 1).expect(200);
    expect((await runOf(t, runId)).state).toBe('completed');
  });
});
