import request from 'supertest';

import { accountChannel } from '../../src/live/index.js';
import { useAppAndReceiver } from '../helpers/app-and-receiver.js';
import { TEST_START } from '../helpers/build-test-app.js';
import { bearer, DEMO_ACCOUNT_ID, DEMO_API_KEY, DEMO_LOCATION_ID, OTHER_API_KEY } from '../helpers/demo.js';
import { givenConfirmedSubscription } from '../helpers/subscriptions.js';
import { advance, notificationsOf } from './given.js';

const { t, receiver } = useAppAndReceiver();

const at = (seconds: number): string => new Date(TEST_START.getTime() + seconds * 1000).toISOString();
const startRun = (name: string): request.Test =>
  request(t.app)
    .post(`/sandbox/scenarios/${name}/runs`)
    .set(bearer(DEMO_API_KEY))
    .send({ locationId: DEMO_LOCATION_ID });
const cancel = (runId: string, key = DEMO_API_KEY): request.Test =>
  request(t.app).post(`/sandbox/runs/${runId}/cancel`).set(bearer(key));
const getRun = (runId: string): request.Test => request(t.app).get(`/sandbox/runs/${runId}`).set(bearer(DEMO_API_KEY));
const activeAlerts = async (): Promise<{ type: string }[]> =>
  (await request(t.app).get(`/v1/locations/${DEMO_LOCATION_ID}`).set(bearer(DEMO_API_KEY)).expect(200)).body.alerts;

describe('POST /sandbox/runs/{runId}/cancel', () => {
  it('ends a running run: cancelled at the account now, no next step', async () => {
    const { body: run } = await startRun('slow-leak-escalates').expect(201);
    await advance(t, 60).expect(200);
    const res = await cancel(run.runId).expect(200);
    expect(res.body).toMatchObject({
      runId: run.runId,
      state: 'cancelled',
      nextStep: 2,
      nextStepAt: null,
      completedAt: at(60),
    });
    expect((await getRun(run.runId).expect(200)).body).toEqual(res.body);
  });

  it('fires no later step, and the alert it started stays active with no end notification', async () => {
    await givenConfirmedSubscription(t, receiver, DEMO_LOCATION_ID);
    const { body: run } = await startRun('slow-leak-escalates').expect(201);
    await t.deps.dispatcher.drain();
    expect(notificationsOf(receiver).map((n) => [n.type, n.active])).toEqual([['lowLeak', true]]);

    await cancel(run.runId).expect(200);
    // Past every step of the scenario (+10 min escalation, +40 min fall-back, +2 h repair).
    await advance(t, 3 * 3600).expect(200);
    await t.deps.dispatcher.drain();

    expect((await getRun(run.runId)).body).toMatchObject({ state: 'cancelled', nextStep: 2 });
    expect((await getRun(run.runId)).body.log).toHaveLength(2);
    expect(notificationsOf(receiver).map((n) => [n.type, n.active])).toEqual([['lowLeak', true]]);
    expect(await activeAlerts()).toEqual([expect.objectContaining({ type: 'lowLeak', active: true })]);
  });

  it('leaves no due work for the background loop: the account has nothing due', async () => {
    const { body: run } = await startRun('cold-snap').expect(201);
    await cancel(run.runId).expect(200);
    const due = await t.store.accounts.due(TEST_START.getTime() + 7 * 3600_000, 100);
    expect(due).not.toContain(DEMO_ACCOUNT_ID);
  });

  it('announces the change to live listeners (the dashboard)', async () => {
    const { body: run } = await startRun('cold-snap').expect(201);
    const events: unknown[] = [];
    const unsubscribe = await t.store.events.subscribe(accountChannel(DEMO_ACCOUNT_ID), (event) => events.push(event));
    try {
      await cancel(run.runId).expect(200);
      expect(events).toContainEqual({ type: 'run', runId: run.runId, state: 'cancelled', nextStep: 1 });
    } finally {
      await unsubscribe();
    }
  });

  it('answers a cancelled run again, unchanged, when it is cancelled twice', async () => {
    const { body: run } = await startRun('cold-snap').expect(201);
    const first = (await cancel(run.runId).expect(200)).body;
    await advance(t, 60).expect(200);
    expect((await cancel(run.runId).expect(200)).body).toEqual(first);
  });

  it('refuses a run that already completed with 409 run_finished', async () => {
    const { body: run } = await startRun('cold-snap').expect(201);
    await advance(t, 7 * 3600).expect(200);
    const res = await cancel(run.runId).expect(409);
    expect(res.body).toEqual({
      error: 'run_finished',
      message: `Run ${run.runId as string} already completed; only a running run can be cancelled`,
    });
    expect((await getRun(run.runId)).body.state).toBe('completed');
  });

  it("answers 404 for an unknown run and for another account's run, which stays running", async () => {
    const { body: run } = await startRun('cold-snap').expect(201);
    await cancel('no-such-run').expect(404);
    await cancel(run.runId, OTHER_API_KEY).expect(404);
    expect((await getRun(run.runId)).body.state).toBe('running');
  });

  it('refuses a body with 400 and leaves the run running', async () => {
    const { body: run } = await startRun('cold-snap').expect(201);
    const res = await cancel(run.runId).send({ now: true }).expect(400);
    expect(res.body).toMatchObject({ error: 'invalid_parameter' });
    expect((await getRun(run.runId)).body.state).toBe('running');
  });
});
