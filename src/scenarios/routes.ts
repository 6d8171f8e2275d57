import type { Router } from 'express';

import { clockState } from '../clock/index.js';
import { operationRouter } from '../http/operation.js';
import { authOf } from '../http/request-context.js';
import { findRun } from '../store/lookups.js';
import { cancelRunAnswer, moveClock, runAnswer, scenarioList, startRunAnswer } from './answers.js';
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
import { presentScenario } from './presenter.js';
import { findScenario, type ScenariosDeps } from './runner.js';

/** /sandbox/clock, /sandbox/scenarios and /sandbox/runs. */
export function scenariosSandboxRouter(deps: ScenariosDeps): Router {
  const api = operationRouter('/sandbox');

  api.handle(getClockOp, (_input, _req, res) => {
    res.json(clockState(deps.clock, authOf(res).doc.clock));
  });

  api.handle(setClockOp, async ({ body }, _req, res) => {
    res.json(await moveClock(deps, authOf(res).accountId, body()));
  });

  api.handle(listScenariosOp, (_input, _req, res) => {
    res.json(scenarioList(deps));
  });

  api.handle(getScenarioOp, ({ params }, _req, res) => {
    res.json(presentScenario(findScenario(deps, params.name)));
  });

  api.handle(startRunOp, async ({ params, body }, _req, res) => {
    const { accountId } = authOf(res);
    findScenario(deps, params.name);
    const { locationId } = body();
    const run = await startRunAnswer(deps, accountId, params.name, locationId);
    res.status(201).location(`/sandbox/runs/${run.runId}`).json(run);
  });

  api.handle(listRunsOp, (_input, _req, res) => {
    const { doc } = authOf(res);
    res.json({ runs: doc.runs.map((r) => runAnswer(deps, r)).reverse() });
  });

  api.handle(getRunOp, ({ params }, _req, res) => {
    res.json(runAnswer(deps, findRun(authOf(res).doc, params.runId)));
  });

  api.handle(cancelRunOp, async ({ params, body }, _req, res) => {
    const caller = authOf(res);
    // An unknown run is a 404 before the body is looked at.
    findRun(caller.doc, params.runId);
    body();
    res.json(await cancelRunAnswer(deps, caller, params.runId));
  });

  return api.done();
}
