import { changeAccountClock, type ClockChange, type ClockState } from '../clock/index.js';
import { publishAccountEvent } from '../live/index.js';
import type { AccountDoc, DeepReadonly, ScenarioRunRecord } from '../store/data.js';
import { findRun } from '../store/lookups.js';
import { scenarioWork } from './due-steps.js';
import { presentRun, presentScenarioSummary, type PublicRun } from './presenter.js';
import { cancelRun, startRun, stepDueMs, type ScenariosDeps } from './runner.js';

/** A run as GET /sandbox/runs/{runId} shows it. */
export const runAnswer = (deps: Pick<ScenariosDeps, 'scenarios'>, run: DeepReadonly<ScenarioRunRecord>): PublicRun =>
  presentRun(run, stepDueMs(deps, run));

/** What GET /sandbox/scenarios answers. */
export const scenarioList = (deps: Pick<ScenariosDeps, 'scenarios'>) => ({
  scenarios: [...deps.scenarios.values()].map(presentScenarioSummary),
});

/**
 * Moves, freezes or resets the account's clock as POST /sandbox/clock does: scenario steps, then
 * deliveries, at each instant the clock stops at. Tells the account's live streams.
 */
export async function moveClock(deps: ScenariosDeps, accountId: string, change: ClockChange): Promise<ClockState> {
  const state = await changeAccountClock(deps, accountId, change, [scenarioWork(deps), deps.dispatcher]);
  await publishAccountEvent(deps.store, accountId, { type: 'clock', ...state });
  return state;
}

/** Starts a run of a scenario at one of the account's locations, as POST /sandbox/scenarios/{name}/runs does. */
export async function startRunAnswer(
  deps: ScenariosDeps,
  accountId: string,
  name: string,
  locationId: string,
): Promise<PublicRun> {
  return runAnswer(deps, await startRun(deps, accountId, name, locationId));
}

/** Cancels one of the account's runs, as POST /sandbox/runs/{runId}/cancel does. */
export async function cancelRunAnswer(
  deps: ScenariosDeps,
  caller: { accountId: string; doc: DeepReadonly<AccountDoc> },
  runId: string,
): Promise<PublicRun> {
  findRun(caller.doc, runId);
  return runAnswer(deps, await cancelRun(deps, caller.accountId, runId));
}
