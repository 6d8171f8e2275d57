import { endAlert, startAlert, type AlertsDeps, type StartAlertInput } from '../alerts/index.js';
import { accountNowMs, timeLockOf } from '../clock/index.js';
import { AppError, capReached, conflict, LimitError, notFound } from '../core/errors.js';
import { publishAccountEvent } from '../live/index.js';
import type { AccountDoc, DeepReadonly, LocationRecord, ScenarioRunRecord } from '../store/data.js';
import { findLocation, findRun } from '../store/lookups.js';
import type { Scenario, ScenarioCatalog, ScenarioStep } from './schema.js';

export interface ScenariosDeps extends AlertsDeps {
  scenarios: ScenarioCatalog;
  config: { readonly limits: { readonly runningRuns: number } };
}

/** Finished runs kept per account; older ones are dropped when a new run starts. */
const KEPT_FINISHED_RUNS = 50;
/** Usage changes (setUsage steps) kept per location; an older one no longer scales the readings of its hours. */
export const USAGE_CHANGES_KEPT = 100;

type RunRecord = DeepReadonly<ScenarioRunRecord>;

export function findScenario(deps: Pick<ScenariosDeps, 'scenarios'>, name: string): Scenario {
  const scenario = deps.scenarios.get(name);
  if (!scenario)
    throw notFound(`No scenario ${JSON.stringify(name)}; GET /sandbox/scenarios lists the scenarios of this sandbox`);
  return scenario;
}

const deviceIndexOf = (step: ScenarioStep): number | null =>
  step.do === 'startAlert' || step.do === 'disconnectDevice' || step.do === 'reconnectDevice'
    ? (step.device ?? 0)
    : null;

/**
 * Starts a run of the scenario at the location: stored, then its steps due at once (offset 0)
 * are applied before this resolves. Validates first, so a refused request stores nothing.
 */
export async function startRun(
  deps: ScenariosDeps,
  accountId: string,
  scenarioName: string,
  locationId: string,
): Promise<RunRecord> {
  const scenario = findScenario(deps, scenarioName);
  const doc = await deps.store.accounts.get(accountId);
  if (!doc) throw notFound('This account no longer exists');
  const location = findLocation(doc, locationId);
  const highestDevice = Math.max(-1, ...scenario.steps.map((s) => deviceIndexOf(s) ?? -1));
  if (highestDevice >= location.devices.length) {
    throw new AppError(
      400,
      'scenario_not_applicable',
      `Scenario ${scenario.name} uses device index ${highestDevice}, but location ${locationId} has ${location.devices.length} device(s); pick a location with more devices`,
      { details: { parameter: 'locationId' } },
    );
  }
  const runId = deps.ids.uuid();
  return deps.store.locks.withLock(timeLockOf(accountId), async () => {
    await deps.store.accounts.update(accountId, (d) => {
      ensureRoomForRun(d, deps.config.limits.runningRuns);
      const startedAtMs = accountNowMs(deps.clock, d.clock);
      const run: ScenarioRunRecord = {
        runId,
        accountId,
        scenario: scenario.name,
        locationId,
        startedAtMs,
        nextStep: 0,
        totalSteps: scenario.steps.length,
        dueAtMs: null,
        state: 'running',
        log: [],
        alertIds: {},
      };
      run.dueAtMs = stepDueMs(deps, run);
      d.runs.push(run);
      pruneFinishedRuns(d);
    });
    await applyDueSteps(deps, accountId);
    const after = await deps.store.accounts.get(accountId);
    if (!after) throw notFound('This account no longer exists');
    return structuredClone(findRun(after, runId));
  });
}

/** MAX_RUNNING_RUNS (0 = no cap): a run more is a 409 while that many run. */
function ensureRoomForRun(doc: AccountDoc, maxRunning: number): void {
  const running = doc.runs.filter((r) => r.state === 'running').length;
  if (maxRunning === 0 || running < maxRunning) return;
  throw capReached(
    'MAX_RUNNING_RUNS',
    `This account has ${running} scenario runs running, the most this sandbox allows (MAX_RUNNING_RUNS=${maxRunning}); cancel one (POST /sandbox/runs/{runId}/cancel) or let it finish before starting another`,
  );
}

function pruneFinishedRuns(doc: AccountDoc): void {
  const finished = doc.runs.filter((r) => r.state !== 'running');
  const drop = new Set(finished.slice(0, Math.max(0, finished.length - KEPT_FINISHED_RUNS)));
  if (drop.size > 0) doc.runs = doc.runs.filter((r) => !drop.has(r));
}

/** When the run's next step is due (virtual ms), or null when it has none. */
export function stepDueMs(deps: Pick<ScenariosDeps, 'scenarios'>, run: RunRecord): number | null {
  if (run.state !== 'running') return null;
  const step = deps.scenarios.get(run.scenario)?.steps[run.nextStep];
  // A run whose scenario vanished (files changed across a restart) is due now, so it gets marked failed.
  return step ? run.startedAtMs + step.at : run.startedAtMs;
}

/** The earliest due step of the account's running runs, or null. */
export async function nextStepDueMs(deps: ScenariosDeps, accountId: string): Promise<number | null> {
  const doc = await deps.store.accounts.get(accountId);
  return (doc?.runs ?? []).reduce<number | null>((min, run) => {
    const due = stepDueMs(deps, run);
    return due !== null && (min === null || due < min) ? due : min;
  }, null);
}

/**
 * Applies, in time order, every step of the account's runs that is due on its clock. Call
 * holding the account's time lock (a clock move does; so does the background loop).
 */
export async function applyDueSteps(deps: ScenariosDeps, accountId: string): Promise<number> {
  await syncDueTimes(deps, accountId);
  let applied = 0;
  for (;;) {
    const doc = await deps.store.accounts.get(accountId);
    if (!doc) return applied;
    const nowMs = accountNowMs(deps.clock, doc.clock);
    let next: { runId: string; dueAtMs: number } | null = null;
    for (const run of doc.runs) {
      const due = stepDueMs(deps, run);
      if (due !== null && due <= nowMs && (next === null || due < next.dueAtMs))
        next = { runId: run.runId, dueAtMs: due };
    }
    if (!next) return applied;
    await applyNextStep(deps, accountId, next.runId, next.dueAtMs);
    applied++;
  }
}

/**
 * Keeps each run's stored due time equal to its scenario's, so the store knows when the
 * account has work (a run migrated from 0.1, or a scenario file changed across a restart).
 */
async function syncDueTimes(deps: ScenariosDeps, accountId: string): Promise<void> {
  const doc = await deps.store.accounts.get(accountId);
  if (!doc?.runs.some((r) => r.dueAtMs !== stepDueMs(deps, r))) return;
  await deps.store.accounts.update(accountId, (d) => {
    for (const run of d.runs) run.dueAtMs = stepDueMs(deps, run);
  });
}

interface StepResult {
  ok: boolean;
  result: string;
  /** A label to bind to an alert id, or to unbind (null). */
  label?: { name: string; alertId: string | null };
  /** The run cannot go on (its scenario or location is gone). */
  fatal?: boolean;
}

async function applyNextStep(deps: ScenariosDeps, accountId: string, runId: string, dueAtMs: number): Promise<void> {
  const doc = await deps.store.accounts.get(accountId);
  if (!doc) return;
  const run = structuredClone(findRun(doc, runId)) as ScenarioRunRecord;
  const scenario = deps.scenarios.get(run.scenario);
  const step = scenario?.steps[run.nextStep];
  let outcome: StepResult;
  if (!step) {
    outcome = {
      ok: false,
      fatal: true,
      result: `scenario ${run.scenario} is no longer loaded (SCENARIOS_DIR changed); the run stops`,
    };
  } else {
    try {
      outcome = await applyStep(deps, run, step);
    } catch (error) {
      if (!(error instanceof AppError) || !error.expose)
        deps.logger.error('scenario step failed unexpectedly', { runId, step: run.nextStep, err: error });
      outcome = {
        ok: false,
        result:
          error instanceof AppError && error.expose ? error.message : `unexpected error: ${(error as Error).message}`,
      };
    }
  }
  const recorded = await deps.store.accounts
    .update(accountId, (d) => {
      const record = d.runs.find((r) => r.runId === runId);
      if (!record) return null;
      const atMs = accountNowMs(deps.clock, d.clock);
      record.log.push({
        step: record.nextStep,
        atMs,
        dueAtMs,
        action: step?.do ?? 'none',
        ok: outcome.ok,
        result: outcome.result,
      });
      if (outcome.label) {
        const { [outcome.label.name]: _previous, ...others } = record.alertIds;
        record.alertIds =
          outcome.label.alertId === null ? others : { ...others, [outcome.label.name]: outcome.label.alertId };
      }
      record.nextStep++;
      if (outcome.fatal) record.state = 'failed';
      else if (record.nextStep >= record.totalSteps) record.state = 'completed';
      record.dueAtMs = stepDueMs(deps, record);
      return { state: record.state, nextStep: record.nextStep };
    })
    .catch((error: unknown) => {
      if (!(error instanceof LimitError)) throw error;
      return stopForLimit(deps, accountId, runId, error);
    });
  if (recorded) await publishAccountEvent(deps.store, accountId, { type: 'run', runId, ...recorded });
  deps.logger.info('scenario step', {
    runId,
    accountId,
    scenario: run.scenario,
    step: run.nextStep,
    do: step?.do,
    ok: outcome.ok,
    result: outcome.result,
  });
}

/**
 * The account is full (ACCOUNT_STORAGE_LIMIT): the step's record does not fit, so the run stops
 * here, failed, in a change that frees space (it would otherwise fall due again and again).
 */
async function stopForLimit(
  deps: ScenariosDeps,
  accountId: string,
  runId: string,
  error: LimitError,
): Promise<{ state: ScenarioRunRecord['state']; nextStep: number } | null> {
  deps.logger.warn('scenario run stopped: its step could not be recorded', { accountId, runId, limit: error.limit });
  return deps.store.accounts.update(accountId, (d) => {
    const record = d.runs.find((r) => r.runId === runId);
    if (!record) return null;
    record.state = 'failed';
    record.dueAtMs = null;
    return { state: record.state, nextStep: record.nextStep };
  });
}

async function applyStep(deps: ScenariosDeps, run: ScenarioRunRecord, step: ScenarioStep): Promise<StepResult> {
  const { accountId, locationId } = run;
  const location = (await deps.store.accounts.get(accountId))?.locations.find((l) => l.locationId === locationId);
  if (!location)
    return { ok: false, fatal: true, result: `location ${locationId} no longer exists in this account; the run stops` };
  const deviceAt = (index: number): string => {
    const device = location.devices[index];
    if (!device) throw new AppError(400, 'no_such_device', `location ${locationId} has no device at index ${index}`);
    return device.deviceId;
  };

  switch (step.do) {
    case 'startAlert': {
      const input: StartAlertInput = { type: step.type, deviceId: deviceAt(step.device ?? 0) };
      if (step.peakValue !== undefined) input.peakValue = step.peakValue;
      if (step.peakStatus !== undefined) input.peakStatus = step.peakStatus;
      if (step.flowGpm !== undefined) input.flowGpm = step.flowGpm;
      const { outcome, alert } = await startAlert(deps, accountId, locationId, input);
      if (outcome === 'ignored') {
        return {
          ok: true,
          result: `ignored: a ${alert.type} alert (${alert.alertId}) is active, so a ${step.type} alert does not start`,
          label: { name: step.alert, alertId: null },
        };
      }
      return {
        ok: true,
        result: `${outcome} ${alert.type} alert ${alert.alertId}`,
        label: { name: step.alert, alertId: alert.alertId },
      };
    }
    case 'endAlert': {
      const bound = run.alertIds[step.alert];
      if (bound === undefined) {
        return {
          ok: false,
          result: `alert "${step.alert}" was not started by this run (its startAlert step was ignored or failed)`,
        };
      }
      // endAlert follows a low leak that resumed after a high one to the alert now in force.
      const ended = await endAlert(deps, accountId, locationId, bound);
      return {
        ok: true,
        result: `ended ${ended.type} alert ${ended.alertId}`,
        label: { name: step.alert, alertId: null },
      };
    }
    case 'setHomeAway': {
      await changeLocation(deps, accountId, locationId, (record) => {
        record.homeAway = step.homeAway;
      });
      return { ok: true, result: `homeAway set to ${step.homeAway}` };
    }
    case 'disconnectDevice':
    case 'reconnectDevice': {
      const deviceId = deviceAt(step.device ?? 0);
      const connected = step.do === 'reconnectDevice';
      await changeLocation(deps, accountId, locationId, (record) => {
        const device = record.devices.find((x) => x.deviceId === deviceId);
        if (device) device.connected = connected;
      });
      return { ok: true, result: `device ${deviceId} ${connected ? 'connected' : 'disconnected'}` };
    }
    case 'setUsage': {
      const toMs = await deps.store.accounts.update(accountId, (d) => {
        const nowMs = accountNowMs(deps.clock, d.clock);
        const until = step.for === undefined ? null : nowMs + step.for;
        const record = d.locations.find((l) => l.locationId === locationId);
        if (!record) return until;
        // A new usage change replaces the one in force.
        for (const o of record.usageOverrides ?? [])
          if (o.toMs === null || o.toMs > nowMs) o.toMs = Math.max(o.fromMs, nowMs);
        if (step.scale !== 1) (record.usageOverrides ??= []).push({ fromMs: nowMs, toMs: until, scale: step.scale });
        // Kept as history (past hours stay scaled), the newest USAGE_CHANGES_KEPT: every reading walks them.
        if (record.usageOverrides && record.usageOverrides.length > USAGE_CHANGES_KEPT)
          record.usageOverrides.splice(0, record.usageOverrides.length - USAGE_CHANGES_KEPT);
        return until;
      });
      return {
        ok: true,
        result: `usage scaled by ${step.scale}${toMs === null ? '' : ` until ${new Date(toMs).toISOString()}`}`,
      };
    }
  }
}

/**
 * Changes what GET /v1/locations shows of the location, then tells the account's event stream, as
 * PUT /v1/locations does: a page that shows the location reloads it (without the event, it kept
 * showing the state before the step until something else made it reload).
 */
async function changeLocation(
  deps: ScenariosDeps,
  accountId: string,
  locationId: string,
  change: (record: LocationRecord) => void,
): Promise<void> {
  const homeAway = await deps.store.accounts.update(accountId, (d) => {
    const record = d.locations.find((l) => l.locationId === locationId);
    if (!record) return null;
    change(record);
    return record.homeAway;
  });
  if (homeAway !== null) await publishAccountEvent(deps.store, accountId, { type: 'location', locationId, homeAway });
}

/**
 * Cancels a running run: it becomes `cancelled` and no later step runs. What its steps did
 * stays (an alert it started stays active). Holds the account's time lock, so a step being
 * applied finishes first and none starts after. Cancelling a cancelled run answers it again.
 */
export async function cancelRun(deps: ScenariosDeps, accountId: string, runId: string): Promise<RunRecord> {
  return deps.store.locks.withLock(timeLockOf(accountId), async () => {
    const cancelled = await deps.store.accounts.update(accountId, (d) => {
      const run = findRun(d, runId) as ScenarioRunRecord;
      if (run.state === 'cancelled') return null;
      if (run.state !== 'running') {
        throw conflict('run_finished', `Run ${runId} already ${run.state}; only a running run can be cancelled`);
      }
      run.state = 'cancelled';
      run.cancelledAtMs = accountNowMs(deps.clock, d.clock);
      run.dueAtMs = null;
      return { nextStep: run.nextStep };
    });
    if (cancelled) {
      await publishAccountEvent(deps.store, accountId, {
        type: 'run',
        runId,
        state: 'cancelled',
        nextStep: cancelled.nextStep,
      });
      deps.logger.info('scenario run cancelled', { runId, accountId });
    }
    const doc = await deps.store.accounts.get(accountId);
    if (!doc) throw notFound('This account no longer exists');
    return structuredClone(findRun(doc, runId));
  });
}
