import type { DeepReadonly, ScenarioRunRecord } from '../store/data.js';
import type { Scenario } from './schema.js';

const iso = (ms: number): string => new Date(ms).toISOString();

export function presentScenarioSummary(scenario: Scenario): {
  name: string;
  description: string;
  title: string | null;
  premise: string | null;
  durationSeconds: number;
  steps: number;
} {
  return {
    name: scenario.name,
    description: scenario.description,
    title: scenario.title ?? null,
    premise: scenario.premise ?? null,
    durationSeconds: scenario.durationMs / 1000,
    steps: scenario.steps.length,
  };
}

/** The whole scenario, with each step's offset in seconds. */
export function presentScenario(scenario: Scenario): Record<string, unknown> {
  return {
    ...presentScenarioSummary(scenario),
    steps: scenario.steps.map(({ at, ...rest }) => ({ atSeconds: at / 1000, ...rest })),
    expect: scenario.expect,
  };
}

export interface PublicRun {
  runId: string;
  scenario: string;
  locationId: string;
  state: ScenarioRunRecord['state'];
  startedAt: string;
  steps: number;
  /** Index of the next step to apply (equals `steps` once all are applied). */
  nextStep: number;
  nextStepAt: string | null;
  completedAt: string | null;
  log: { step: number; do: string; at: string; dueAt: string; ok: boolean; result: string }[];
}

export function presentRun(run: DeepReadonly<ScenarioRunRecord>, nextStepDueMs: number | null): PublicRun {
  const last = run.log.at(-1);
  return {
    runId: run.runId,
    scenario: run.scenario,
    locationId: run.locationId,
    state: run.state,
    startedAt: iso(run.startedAtMs),
    steps: run.totalSteps,
    nextStep: run.nextStep,
    nextStepAt: run.state === 'running' && nextStepDueMs !== null ? iso(nextStepDueMs) : null,
    completedAt:
      run.cancelledAtMs !== undefined
        ? iso(run.cancelledAtMs)
        : run.state !== 'running' && last
          ? iso(last.atMs)
          : null,
    log: run.log.map((e) => ({
      step: e.step,
      do: e.action,
      at: iso(e.atMs),
      dueAt: iso(e.dueAtMs),
      ok: e.ok,
      result: e.result,
    })),
  };
}
