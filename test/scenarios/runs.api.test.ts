import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import request from 'supertest';

import { USAGE_CHANGES_KEPT } from '../../src/scenarios/runner.js';
import { parseScenarioFile, type Scenario } from '../../src/scenarios/schema.js';
import { buildTestApp, docOf, TEST_START, type TestApp } from '../helpers/build-test-app.js';
import { DEMO_NEW_YORK } from '../helpers/demo-locations.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID, OTHER_API_KEY, OTHER_LOCATION_ID } from '../helpers/demo.js';
import { advance } from './given.js';

function scenarioOf(name: string, steps: unknown[]): [string, Scenario] {
  const { scenario, problems } = parseScenarioFile(
    `inline/${name}.json`,
    name,
    JSON.stringify({ description: name, steps, expect: { notifications: [] } }),
  );
  if (!scenario) throw new Error(problems.join('\n'));
  return [name, scenario];
}

const custom = new Map([
  scenarioOf('house-changes', [
    { at: 0, do: 'setHomeAway', homeAway: 'away' },
    { at: '+1m', do: 'disconnectDevice' },
    { at: '+2m', do: 'setUsage', scale: 3, for: '+1h' },
    { at: '+3m', do: 'reconnectDevice', device: 0 },
    { at: '+4m', do: 'setHomeAway', homeAway: 'home' },
  ]),
  scenarioOf('double-end', [
    { at: 0, do: 'startAlert', alert: 'leak', type: 'lowLeak' },
    { at: '+1m', do: 'endAlert', alert: 'leak' },
    { at: '+1m', do: 'startAlert', alert: 'leak', type: 'highLeak' },
    { at: '+2m', do: 'endAlert', alert: 'leak' },
  ]),
  scenarioOf('second-device', [{ at: 0, do: 'disconnectDevice', device: 1 }]),
  scenarioOf('scale-now', [{ at: 0, do: 'setUsage', scale: 2, for: '+1m' }]),
]);

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});

const startRun = (name: string, body: unknown, key = DEMO_API_KEY): request.Test =>
  request(t.app)
    .post(`/sandbox/scenarios/${name}/runs`)
    .set(bearer(key))
    .send(body as object);
const getRun = (runId: string, key = DEMO_API_KEY): request.Test =>
  request(t.app).get(`/sandbox/runs/${runId}`).set(bearer(key));
const at = (seconds: number): string => new Date(TEST_START.getTime() + seconds * 1000).toISOString();
const location = (): request.Test => request(t.app).get(`/v1/locations/${DEMO_LOCATION_ID}`).set(bearer(DEMO_API_KEY));

describe('GET /sandbox/scenarios', () => {
  it('lists the shipped scenarios with name, description, story title and premise, duration and step count', async () => {
    const res = await request(t.app).get('/sandbox/scenarios').set(bearer(DEMO_API_KEY)).expect(200);
    const names = res.body.scenarios.map((s: { name: string }) => s.name);
    expect(names).toEqual(expect.arrayContaining(['slow-leak-escalates', 'away-leak', 'cold-snap', 'flapping-alert']));
    expect(res.body.scenarios.find((s: { name: string }) => s.name === 'cold-snap')).toEqual({
      name: 'cold-snap',
      description: expect.stringContaining('ambientTemp'),
      title: 'A freezing night',
      premise: expect.stringContaining('heating'),
      durationSeconds: 6 * 3600,
      steps: 2,
    });
  });

  it('shows one scenario with its steps, their captions and expected notifications', async () => {
    const res = await request(t.app).get('/sandbox/scenarios/cold-snap').set(bearer(DEMO_API_KEY)).expect(200);
    expect(res.body.steps[1]).toEqual({
      atSeconds: 21_600,
      do: 'endAlert',
      alert: 'cold',
      caption: expect.stringContaining('heating is back on'),
    });
    expect(res.body.expect.notifications).toHaveLength(2);
  });

  it('answers 404 for an unknown scenario', async () => {
    const res = await request(t.app).get('/sandbox/scenarios/no-such').set(bearer(DEMO_API_KEY)).expect(404);
    expect(res.body.message).toContain('GET /sandbox/scenarios');
  });
});

describe('POST /sandbox/scenarios/{name}/runs', () => {
  it('answers 201 with the run, and applies the steps due at once before answering', async () => {
    const res = await startRun('cold-snap', { locationId: DEMO_LOCATION_ID }).expect(201);
    expect(res.headers['location']).toBe(`/sandbox/runs/${res.body.runId as string}`);
    expect(res.body).toEqual({
      runId: expect.any(String),
      scenario: 'cold-snap',
      locationId: DEMO_LOCATION_ID,
      state: 'running',
      startedAt: at(0),
      steps: 2,
      nextStep: 1,
      nextStepAt: at(6 * 3600),
      completedAt: null,
      log: [
        {
          step: 0,
          do: 'startAlert',
          at: at(0),
          dueAt: at(0),
          ok: true,
          result: expect.stringMatching(/^started ambientTemp alert /),
        },
      ],
    });
    expect((await location()).body.alerts).toEqual([
      expect.objectContaining({ type: 'ambientTemp', active: true, peakStatus: 'too_low', peakValue: 34 }),
    ]);
  });

  it('shows progress, then completed, as the clock advances', async () => {
    const { body: run } = await startRun('cold-snap', { locationId: DEMO_LOCATION_ID }).expect(201);
    await advance(t, 3600).expect(200);
    expect((await getRun(run.runId)).body).toMatchObject({ state: 'running', nextStep: 1 });
    await advance(t, 5 * 3600).expect(200);
    const done = (await getRun(run.runId).expect(200)).body;
    expect(done).toMatchObject({ state: 'completed', nextStep: 2, nextStepAt: null, completedAt: at(6 * 3600) });
    expect(done.log[1]).toMatchObject({ step: 1, do: 'endAlert', at: at(6 * 3600), ok: true });
    expect((await location()).body.alerts).toEqual([]);
  });

  it('applies homeAway, device and usage steps to the location', async () => {
    t = await buildTestApp({ overrides: { scenarios: custom } });
    const { body: run } = await startRun('house-changes', { locationId: DEMO_LOCATION_ID }).expect(201);
    expect((await location()).body.homeAway).toBe('away');
    await advance(t, 60).expect(200);
    expect((await location()).body.devices[0].connected).toBe(false);
    await advance(t, 60).expect(200);
    const overrides = (await docOf(t)).locations.find((l) => l.locationId === DEMO_LOCATION_ID)?.usageOverrides;
    expect(overrides).toEqual([{ fromMs: Date.parse(at(120)), toMs: Date.parse(at(120 + 3600)), scale: 3 }]);
    await advance(t, 120).expect(200);
    expect((await location()).body).toMatchObject({
      homeAway: 'home',
      devices: [expect.objectContaining({ connected: true })],
    });
    expect((await getRun(run.runId)).body.log.every((e: { ok: boolean }) => e.ok)).toBe(true);
  });

  it('records a step that fails in the run log and carries on with the next', async () => {
    t = await buildTestApp({ overrides: { scenarios: custom } });
    await startRun('double-end', { locationId: DEMO_LOCATION_ID }).expect(201);
    const [leak] = (await location()).body.alerts;
    // The partner ends the alert first, so the scenario's own end step finds it already ended.
    const alertId = (await docOf(t)).alerts.find((a) => a.active)?.alertId;
    expect(leak.type).toBe('lowLeak');
    await request(t.app)
      .post(`/sandbox/locations/${DEMO_LOCATION_ID}/alerts/${alertId as string}/end`)
      .set(bearer(DEMO_API_KEY))
      .expect(200);
    await advance(t, 120).expect(200);
    const runs = (await request(t.app).get('/sandbox/runs').set(bearer(DEMO_API_KEY)).expect(200)).body.runs;
    expect(runs[0]).toMatchObject({ state: 'completed' });
    expect(runs[0].log.map((e: { do: string; ok: boolean }) => [e.do, e.ok])).toEqual([
      ['startAlert', true],
      ['endAlert', false],
      ['startAlert', true],
      ['endAlert', true],
    ]);
    expect(runs[0].log[1].result).toContain('already ended');
  });

  it(`keeps the newest ${USAGE_CHANGES_KEPT} usage changes of a location, however many runs made them (every reading walks them)`, async () => {
    t = await buildTestApp({ overrides: { scenarios: custom } });
    for (let i = 0; i < USAGE_CHANGES_KEPT + 5; i++) {
      await startRun('scale-now', { locationId: DEMO_LOCATION_ID }).expect(201);
      await advance(t, 60).expect(200);
    }
    const overrides = (await docOf(t)).locations.find((l) => l.locationId === DEMO_LOCATION_ID)!.usageOverrides!;
    expect(overrides).toHaveLength(USAGE_CHANGES_KEPT);
    // The oldest five went; the newest one is the last run's.
    expect(overrides[0]!.fromMs).toBe(TEST_START.getTime() + 5 * 60_000);
    expect(overrides.at(-1)!.fromMs).toBe(TEST_START.getTime() + (USAGE_CHANGES_KEPT + 4) * 60_000);
  });

  it('refuses a scenario that needs more devices than the location has, with 400 naming locationId', async () => {
    t = await buildTestApp({ overrides: { scenarios: custom } });
    expect(DEMO_NEW_YORK.devices).toHaveLength(1);
    const res = await startRun('second-device', { locationId: DEMO_LOCATION_ID }).expect(400);
    expect(res.body).toMatchObject({ error: 'scenario_not_applicable', parameter: 'locationId' });
    expect((await docOf(t)).runs).toHaveLength(0);
  });

  it('answers 404 for an unknown scenario', async () => {
    await startRun('no-such', { locationId: DEMO_LOCATION_ID }).expect(404);
  });

  it.each([OTHER_LOCATION_ID, 'invalid-locationid'])(
    'answers 404 for location %s, which is not in the account',
    async (locationId) => {
      const res = await startRun('cold-snap', { locationId }).expect(404);
      expect(res.body.error).toBe('not_found');
      expect((await docOf(t)).runs).toHaveLength(0);
    },
  );

  it.each([
    [{}, 'locationId'],
    [{ locationId: 42 }, 'locationId'],
    [{ locationId: DEMO_LOCATION_ID, speed: 2 }, 'speed'],
    [[DEMO_LOCATION_ID], 'body'],
  ])('refuses %j with a 400 naming %s', async (body, parameter) => {
    const res = await startRun('cold-snap', body).expect(400);
    expect(res.body).toMatchObject({ error: 'invalid_parameter', parameter });
    expect((await docOf(t)).runs).toHaveLength(0);
  });
});

describe('GET /sandbox/runs/{runId}', () => {
  it('answers 404 for a run of another account', async () => {
    const { body: run } = await startRun('cold-snap', { locationId: DEMO_LOCATION_ID }).expect(201);
    await getRun(run.runId, OTHER_API_KEY).expect(404);
    await getRun('not-a-run').expect(404);
  });

  it('follows the clock of the run account only', async () => {
    const { body: run } = await startRun('cold-snap', { locationId: DEMO_LOCATION_ID }).expect(201);
    await advance(t, 7 * 3600, OTHER_API_KEY).expect(200);
    expect((await getRun(run.runId)).body.state).toBe('running');
  });
});

describe('a run across a restart', () => {
  it('is kept in the store and carries on where it was after the sandbox restarts on the same DATA_DIR', async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'runs-')), 'state');
    t = await buildTestApp({ env: { DATA_DIR: dataDir } });
    const { body: run } = await startRun('cold-snap', { locationId: DEMO_LOCATION_ID }).expect(201);
    await t.store.flush();

    t = await buildTestApp({ env: { DATA_DIR: dataDir } });
    expect((await getRun(run.runId)).body).toMatchObject({ state: 'running', nextStep: 1 });
    await advance(t, 6 * 3600).expect(200);
    expect((await getRun(run.runId)).body).toMatchObject({ state: 'completed', completedAt: at(6 * 3600) });
  });

  it('is marked failed, with the reason in its log, when its scenario file is gone after the restart', async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'runs-')), 'state');
    t = await buildTestApp({ env: { DATA_DIR: dataDir } });
    const { body: run } = await startRun('cold-snap', { locationId: DEMO_LOCATION_ID }).expect(201);
    await t.store.flush();

    t = await buildTestApp({ env: { DATA_DIR: dataDir }, overrides: { scenarios: new Map() } });
    await advance(t, 60).expect(200);
    const after = (await getRun(run.runId)).body;
    expect(after.state).toBe('failed');
    expect(after.log.at(-1)).toMatchObject({ ok: false, result: expect.stringContaining('no longer loaded') });
  });
});
