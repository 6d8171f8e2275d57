import type { Router } from 'express';

import { changeAccountClock, clockState } from '../clock/index.js';
import { operationRouter } from '../http/operation.js';
import { authOf } from '../http/request-context.js';
import { publishAccountEvent } from '../live/index.js';
import { findRun } from '../store/lookups.js';
import { scenarioWork } from './due-steps.js';
import {
  cancelRunOp,
  getClockOp,
  getRunOp,
  getScenarioOp,
  listRunsOp,
  listScenariosOp,
  setClockOp,
  startRunOp,
} from './operations.js';
import { presentRun, presentScenario, presentScenarioSummary } from './presenter.js';
import { cancelRun, findScenario, startRun, stepDueMs, type ScenariosDeps } from './runner.js';

/** /sandbox/clock, /sandbox/scenarios and /sandbox/runs. */
export function scenariosSandboxRouter(deps: ScenariosDeps): Router {
  const api = operationRouter('/sandbox');
  // Scenario steps first, then deliveries, at each instant the clock stops at.
  const work = [scenarioWork(deps), deps.dispatcher];

  api.handle(getClockOp, (_input, _req, res) => {
    res.json(clockState(deps.clock, authOf(res).doc.clock));
  });

  api.handle(setClockOp, async ({ body }, _req, res) => {
    const { accountId } = authOf(res);
    const state = await changeAccountClock(deps, accountId, body(), work);
    await publishAccountEvent(deps.store, accountId, { type: 'clock', ...state });
    res.json(state);
  });

  api.handle(listScenariosOp, (_input, _req, res) => {
    res.json({ scenarios: [...deps.scenarios.values()].map(presentScenarioSummary) });
  });

  api.handle(getScenarioOp, ({ params }, _req, res) => {
    res.json(presentScenario(findScenario(deps, params.name)));
  });

  api.handle(startRunOp, async ({ params, body }, _req, res) => {
    const { accountId } = authOf(res);
    findScenario(deps, params.name);
    const { locationId } = body();
    const run = await startRun(deps, accountId, params.name, locationId);
    res
      .status(201)
      .location(`/sandbox/runs/${run.runId}`)
      .json(presentRun(run, stepDueMs(deps, run)));
  });

  api.handle(listRunsOp, (_input, _req, res) => {
    const { doc } = authOf(res);
    res.json({ runs: doc.runs.map((r) => presentRun(r, stepDueMs(deps, r))).reverse() });
  });

  api.handle(getRunOp, ({ params }, _req, res) => {
    const run = findRun(authOf(res).doc, params.runId);
    res.json(presentRun(run, stepDueMs(deps, run)));
  });

  api.handle(cancelRunOp, async ({ params, body }, _req, res) => {
    const { accountId, doc } = authOf(res);
    findRun(doc, params.runId);
    body();
    const run = await cancelRun(deps, accountId, params.runId);
    res.json(presentRun(run, stepDueMs(deps, run)));
  });

  return api.done();
}
