import { ScenarioError } from '../../src/scenarios/catalog.js';
import { docOf } from '../helpers/build-test-app.js';
import { DEMO_ACCOUNT_ID, DEMO_LOCATION_ID, OTHER_ACCOUNT_ID, OTHER_LOCATION_ID } from '../helpers/demo.js';
import { startTestSandbox as start, stopAllSandboxes } from '../helpers/start-sandbox.js';

afterEach(stopAllSandboxes);

describe('the SCENARIO start-up option', () => {
  it('plays the scenario at the demo account first location when no SCENARIO_LOCATION_ID is given', async () => {
    const sandbox = await start({ SCENARIO: 'cold-snap' });
    const doc = await docOf(sandbox.deps);
    const runs = doc.runs.map((r) => ({
      accountId: r.accountId,
      locationId: r.locationId,
      scenario: r.scenario,
      nextStep: r.nextStep,
    }));
    expect(runs).toEqual([
      { accountId: DEMO_ACCOUNT_ID, locationId: DEMO_LOCATION_ID, scenario: 'cold-snap', nextStep: 1 },
    ]);
    expect(doc.alerts.filter((a) => a.active).map((a) => a.type)).toEqual(['ambientTemp']);
  });

  it('plays it at SCENARIO_LOCATION_ID, on that location account', async () => {
    const sandbox = await start({ SCENARIO: 'cold-snap', SCENARIO_LOCATION_ID: OTHER_LOCATION_ID });
    expect((await docOf(sandbox.deps)).runs).toEqual([]);
    expect((await docOf(sandbox.deps, OTHER_ACCOUNT_ID)).runs.map((r) => [r.accountId, r.locationId])).toEqual([
      [OTHER_ACCOUNT_ID, OTHER_LOCATION_ID],
    ]);
  });

  it('stops start-up with a ScenarioError listing the known scenarios when the name is unknown', async () => {
    const error = await start({ SCENARIO: 'no-such' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScenarioError);
    expect((error as Error).message).toMatch(/SCENARIO="no-such": no such scenario in .*; known: .*cold-snap/);
  });

  it('stops start-up with a ScenarioError when SCENARIO_LOCATION_ID is not a location', async () => {
    const error = await start({ SCENARIO: 'cold-snap', SCENARIO_LOCATION_ID: 'nowhere' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScenarioError);
    expect((error as Error).message).toContain('SCENARIO_LOCATION_ID="nowhere": no such location');
  });

  it('stops start-up with a ScenarioError naming the bad file when SCENARIOS_DIR holds an invalid scenario', async () => {
    const error = await start({ SCENARIOS_DIR: 'test/scenarios/bad-scenarios' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScenarioError);
    expect((error as Error).message).toContain('test/scenarios/bad-scenarios/broken.json: steps[0].at:');
  });
});
