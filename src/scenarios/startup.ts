import type { FixtureSet } from '../store/fixtures.js';
import { ScenarioError } from './catalog.js';
import { startRun, type ScenariosDeps } from './runner.js';

const HEADING = 'Cannot play the start-up scenario:';

export interface StartupRun {
  accountId: string;
  scenario: string;
  locationId: string;
}

/**
 * Resolves SCENARIO / SCENARIO_LOCATION_ID against the loaded scenarios and the store. The
 * location defaults to the first location of the first fixture account (the demo account).
 * A problem is a ScenarioError, which stops start-up.
 */
export async function resolveStartupRun(
  deps: ScenariosDeps & { fixtures: FixtureSet; config: { readonly scenariosDir: string } },
  option: { readonly name: string; readonly locationId: string | null },
): Promise<StartupRun> {
  if (!deps.scenarios.has(option.name)) {
    const known = [...deps.scenarios.keys()];
    throw new ScenarioError(
      [
        `SCENARIO=${JSON.stringify(option.name)}: no such scenario in ${deps.config.scenariosDir}; ${known.length > 0 ? `known: ${known.join(', ')}` : 'that folder has no scenarios'}`,
      ],
      HEADING,
    );
  }
  const locationId = option.locationId ?? deps.fixtures.accounts[0]?.locations[0]?.locationId;
  if (locationId === undefined) {
    throw new ScenarioError(
      ['SCENARIO is set but the fixtures have no location to play it at; set SCENARIO_LOCATION_ID'],
      HEADING,
    );
  }
  const accountId = await deps.store.accounts.lookup('location', locationId);
  if (accountId === null) {
    throw new ScenarioError(
      [
        option.locationId === null
          ? `SCENARIO=${option.name}: the default location ${locationId} no longer exists in the stored state; set SCENARIO_LOCATION_ID`
          : `SCENARIO_LOCATION_ID=${JSON.stringify(locationId)}: no such location`,
      ],
      HEADING,
    );
  }
  return { accountId, scenario: option.name, locationId };
}

/** Plays the start-up scenario: validated with `resolveStartupRun`, then started on the account's clock. */
export async function startStartupRun(deps: ScenariosDeps, run: StartupRun): Promise<void> {
  const started = await startRun(deps, run.accountId, run.scenario, run.locationId);
  deps.logger.info('start-up scenario running', {
    runId: started.runId,
    scenario: run.scenario,
    locationId: run.locationId,
    accountId: run.accountId,
  });
}
