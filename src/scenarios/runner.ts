import { endAlert, startAlert, type StartAlertInput } from '../alerts/service.js';
import type { DueWork } from '../clock/time-travel.js';
import { AppError, invalidParameter, notFound } from '../core/errors.js';
import type { Deps } from '../deps.js';
import { findOwnLocation } from '../locations/lookup.js';
import type { Data, DeepReadonly, ScenarioRunRecord } from '../store/data.js';
import type { Scenario, ScenarioStep } from './schema.js';

/** Finished runs kept per account; older ones are dropped when a new run starts. */
const KEPT_FINISHED_RUNS = 50;

type RunRecord = DeepReadonly<ScenarioRunRecord>;

export function findScenario(deps: Deps, name: string): Scenario {
  const scenario = deps.scenarios.get(name);
  if (!scenario) throw notFound(`No scenario ${JSON.stringify(name)}; GET /sandbox/scenarios lists the scenarios of this sandbox`);
  return scenario;
}

export function findOwnRun(data: DeepReadonly<Data>, accountId: string, runId: string): RunRecord {
  const run = data.runs.find((r) => r.runId === runId && r.accountId === accountId);
  if (!run) throw notFound(`No scenario run ${JSON.stringify(runId)} in this account`);
  return run;
}

/** Validates the body of POST /sandbox/scenarios/{name}/runs. */
export function parseRunRequest(body: unknown): { locationId: string } {
  const example = '{"locationId": "<a locationId from GET /v1/locations>"}';
  if (body === undefined) {
    throw new AppError(415, 'unsupported_media_type', `The request body must be JSON with Content-Type: application/json, e.g. ${example}`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidParameter('body', `The request body must be a JSON object such as ${example}`);
  const unknown = Object.keys(body).filter((k) => k !== 'locationId');
  if (unknown.length > 0) throw invalidParameter(unknown[0] ?? 'body', `A run takes only locationId; remove ${unknown.map((k) => JSON.stringify(k)).join(', ')}`);
  const { locationId } = body as { locationId?: unknown };
  if (locationId === undefined) throw invalidParameter('locationId', `locationId is required: the location the scenario plays at, e.g. ${example}`);
  if (typeof locationId !== 'string' || locationId === '') throw invalidParameter('locationId', `locationId must be a location id string; got ${JSON.stringify(locationId)}`);
  return { locationId };
}

const deviceIndexOf = (step: ScenarioStep): number | null =>
  step.do === 'startAlert' || step.do === 'disconnectDevice' || step.do === 'reconnectDevice' ? (step.device ?? 0) : null;

/**
 * Starts a run of the scenario at the location: stored, then its steps due at once (offset 0)
 * are applied before this resolves. Validates first, so a refused request stores nothing.
 */
export async function startRun(deps: Deps, accountId: string, scenarioName: string, locationId: string): Promise<RunRecord> {
  const scenario = findScenario(deps, scenarioName);
  const location = deps.store.read((d) => findOwnLocation(d, accountId, locationId));
  const highestDevice = Math.max(-1, ...scenario.steps.map((s) => deviceIndexOf(s) ?? -1));
  if (highestDevice >= location.devices.length) {
    throw new AppError(
      400,
      'scenario_not_applicable',
      `Scenario ${scenario.name} uses device index ${highestDevice}, but location ${locationId} has ${location.devices.length} device(s); pick a location with more devices`,
      { details: { parameter: 'locationId' } },
    );
  }
  return deps.clocks.exclusive(accountId, async () => {
    const run: ScenarioRunRecord = {
      runId: deps.ids.uuid(),
      accountId,
      scenario: scenario.name,
      locationId,
      startedAtMs: deps.clocks.now(accountId).getTime(),
      nextStep: 0,
      totalSteps: scenario.steps.length,
      state: 'running',
      log: [],
      alertIds: {},
    };
    await deps.store.write((d) => {
      d.runs.push(run);
      pruneFinishedRuns(d, accountId);
    });
    await applyDueSteps(deps, accountId);
    return deps.store.read((d) => structuredClone(findOwnRun(d, accountId, run.runId)) as RunRecord);
  });
}

function pruneFinishedRuns(data: Data, accountId: string): void {
  const finished = data.runs.filter((r) => r.accountId === accountId && r.state !== 'running');
  const drop = new Set(finished.slice(0, Math.max(0, finished.length - KEPT_FINISHED_RUNS)));
  if (drop.size > 0) data.runs = data.runs.filter((r) => !drop.has(r));
}

/** When the run's next step is due (virtual ms), or null when it has none. */
export function stepDueMs(deps: Deps, run: RunRecord): number | null {
  if (run.state !== 'running') return null;
  const step = deps.scenarios.get(run.scenario)?.steps[run.nextStep];
  // A run whose scenario vanished (files changed across a restart) is due now, so it gets marked failed.
  return step ? run.startedAtMs + step.at : run.startedAtMs;
}

/** The earliest due step of the account's running runs, or null. */
export function nextStepDueMs(deps: Deps, accountId: string): number | null {
  return deps.store.read((d) =>
    d.runs.reduce<number | null>((min, run) => {
      if (run.accountId !== accountId) return min;
      const due = stepDueMs(deps, run);
      return due !== null && (min === null || due < min) ? due : min;
    }, null),
  );
}

/** Applies, in time order, every step of the account's runs that is due on its clock. Call inside `clocks.exclusive`. */
export async function applyDueSteps(deps: Deps, accountId: string): Promise<number> {
  let applied = 0;
  for (;;) {
    const nowMs = deps.clocks.now(accountId).getTime();
    const next = deps.store.read((d) => {
      let best: { runId: string; dueAtMs: number } | null = null;
      for (const run of d.runs) {
        if (run.accountId !== accountId) continue;
        const due = stepDueMs(deps, run);
        if (due !== null && due <= nowMs && (best === null || due < best.dueAtMs)) best = { runId: run.runId, dueAtMs: due };
      }
      return best;
    });
    if (!next) return applied;
    await applyNextStep(deps, accountId, next.runId, next.dueAtMs);
    applied++;
  }
}

interface StepResult {
  ok: boolean;
  result: string;
  /** A label to bind to an alert id, or to unbind (null). */
  label?: { name: string; alertId: string | null };
  /** The run cannot go on (its scenario or location is gone). */
  fatal?: boolean;
}

async function applyNextStep(deps: Deps, accountId: string, runId: string, dueAtMs: number): Promise<void> {
  const run = deps.store.read((d) => structuredClone(findOwnRun(d, accountId, runId)) as ScenarioRunRecord);
  const scenario = deps.scenarios.get(run.scenario);
  const step = scenario?.steps[run.nextStep];
  let outcome: StepResult;
  if (!step) {
    outcome = { ok: false, fatal: true, result: `scenario ${run.scenario} is no longer loaded (SCENARIOS_DIR changed); the run stops` };
  } else {
    try {
      outcome = await applyStep(deps, run, step);
    } catch (error) {
      if (!(error instanceof AppError) || !error.expose) deps.logger.error('scenario step failed unexpectedly', { runId, step: run.nextStep, err: error });
      outcome = { ok: false, result: error instanceof AppError && error.expose ? error.message : `unexpected error: ${(error as Error).message}` };
    }
  }
  const atMs = deps.clocks.now(accountId).getTime();
  await deps.store.write((d) => {
    const record = d.runs.find((r) => r.runId === runId);
    if (!record) return;
    record.log.push({ step: record.nextStep, atMs, dueAtMs, action: step?.do ?? 'none', ok: outcome.ok, result: outcome.result });
    if (outcome.label) {
      if (outcome.label.alertId === null) delete record.alertIds[outcome.label.name];
      else record.alertIds[outcome.label.name] = outcome.label.alertId;
    }
    record.nextStep++;
    if (outcome.fatal) record.state = 'failed';
    else if (record.nextStep >= record.totalSteps) record.state = 'completed';
  });
  deps.logger.info('scenario step', { runId, accountId, scenario: run.scenario, step: run.nextStep, do: step?.do, ok: outcome.ok, result: outcome.result });
}

async function applyStep(deps: Deps, run: ScenarioRunRecord, step: ScenarioStep): Promise<StepResult> {
  const { accountId, locationId } = run;
  const location = deps.store.read((d) => d.locations.find((l) => l.locationId === locationId && l.accountId === accountId));
  if (!location) return { ok: false, fatal: true, result: `location ${locationId} no longer exists in this account; the run stops` };
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
      return { ok: true, result: `${outcome} ${alert.type} alert ${alert.alertId}`, label: { name: step.alert, alertId: alert.alertId } };
    }
    case 'endAlert': {
      const bound = run.alertIds[step.alert];
      if (bound === undefined) {
        return { ok: false, result: `alert "${step.alert}" was not started by this run (its startAlert step was ignored or failed)` };
      }
      // endAlert follows a low leak that resumed after a high one to the alert now in force.
      const ended = await endAlert(deps, accountId, locationId, bound);
      return { ok: true, result: `ended ${ended.type} alert ${ended.alertId}`, label: { name: step.alert, alertId: null } };
    }
    case 'setHomeAway': {
      await deps.store.write((d) => {
        const record = d.locations.find((l) => l.locationId === locationId);
        if (record) record.homeAway = step.homeAway;
      });
      return { ok: true, result: `homeAway set to ${step.homeAway}` };
    }
    case 'disconnectDevice':
    case 'reconnectDevice': {
      const deviceId = deviceAt(step.device ?? 0);
      const connected = step.do === 'reconnectDevice';
      await deps.store.write((d) => {
        const device = d.locations.find((l) => l.locationId === locationId)?.devices.find((x) => x.deviceId === deviceId);
        if (device) device.connected = connected;
      });
      return { ok: true, result: `device ${deviceId} ${connected ? 'connected' : 'disconnected'}` };
    }
    case 'setUsage': {
      const nowMs = deps.clocks.now(accountId).getTime();
      const toMs = step.for === undefined ? null : nowMs + step.for;
      await deps.store.write((d) => {
        const record = d.locations.find((l) => l.locationId === locationId);
        if (!record) return;
        // A new usage change replaces the one in force.
        for (const o of record.usageOverrides ?? []) if (o.toMs === null || o.toMs > nowMs) o.toMs = Math.max(o.fromMs, nowMs);
        if (step.scale !== 1) (record.usageOverrides ??= []).push({ fromMs: nowMs, toMs, scale: step.scale });
      });
      return { ok: true, result: `usage scaled by ${step.scale}${toMs === null ? '' : ` until ${new Date(toMs).toISOString()}`}` };
    }
  }
}

/** Scenario steps as work the account clock runs when it moves. */
export function scenarioWork(deps: Deps): DueWork {
  return {
    nextDueMs: (accountId) => nextStepDueMs(deps, accountId),
    runDue: async (accountId) => {
      await applyDueSteps(deps, accountId);
    },
  };
}

/**
 * Applies due steps of every account in real time, as unfrozen clocks pass them; called by
 * the server's background interval. An account whose clock is being moved is skipped (the
 * move applies its steps). Never rejects.
 */
export async function runDueSteps(deps: Deps): Promise<void> {
  const accounts = deps.store.read((d) => {
    const due = new Set<string>();
    for (const run of d.runs) {
      if (due.has(run.accountId) || deps.clocks.isBusy(run.accountId)) continue;
      const dueAt = stepDueMs(deps, run);
      if (dueAt !== null && dueAt <= deps.clocks.now(run.accountId).getTime()) due.add(run.accountId);
    }
    return [...due];
  });
  await Promise.all(
    accounts.map((accountId) =>
      deps.clocks.exclusive(accountId, () => applyDueSteps(deps, accountId)).catch((error: unknown) => {
        deps.logger.error('applying scenario steps failed', { accountId, err: error });
      }),
    ),
  );
}
