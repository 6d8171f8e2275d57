import { Router } from 'express';

import { changeAccountClock, clockState, parseClockChange } from '../clock/index.js';
import { authOf } from '../http/request-context.js';
import { allowOnly } from '../http/routing.js';
import { publishAccountEvent } from '../live/index.js';
import { findRun } from '../store/lookups.js';
import { presentRun, presentScenario, presentScenarioSummary } from './presenter.js';
import { findScenario, parseRunRequest, scenarioWork, startRun, stepDueMs, type ScenariosDeps } from './runner.js';

/** /sandbox/clock, /sandbox/scenarios and /sandbox/runs. */
export function scenariosSandboxRouter(deps: ScenariosDeps): Router {
  const router = Router({ strict: true });
  // Scenario steps first, then deliveries, at each instant the clock stops at.
  const work = [scenarioWork(deps), deps.dispatcher];

  router.get('/clock', (_req, res) => {
    res.json(clockState(deps.clock, authOf(res).doc.clock));
  });

  router.post('/clock', async (req, res) => {
    const { accountId } = authOf(res);
    const change = parseClockChange(req.body);
    const state = await changeAccountClock(deps, accountId, change, work);
    await publishAccountEvent(deps.store, accountId, { type: 'clock', ...state });
    res.json(state);
  });
  allowOnly(router, '/clock', ['GET', 'POST']);

  router.get('/scenarios', (_req, res) => {
    res.json({ scenarios: [...deps.scenarios.values()].map(presentScenarioSummary) });
  });
  allowOnly(router, '/scenarios', ['GET']);

  router.get('/scenarios/:name', (req, res) => {
    res.json(presentScenario(findScenario(deps, req.params.name)));
  });
  allowOnly(router, '/scenarios/:name', ['GET']);

  router.post('/scenarios/:name/runs', async (req, res) => {
    const { accountId } = authOf(res);
    findScenario(deps, req.params.name);
    const { locationId } = parseRunRequest(req.body);
    const run = await startRun(deps, accountId, req.params.name, locationId);
    res.status(201).location(`/sandbox/runs/${run.runId}`).json(presentRun(run, stepDueMs(deps, run)));
  });
  allowOnly(router, '/scenarios/:name/runs', ['POST']);

  router.get('/runs', (_req, res) => {
    const { doc } = authOf(res);
    res.json({ runs: doc.runs.map((r) => presentRun(r, stepDueMs(deps, r))).reverse() });
  });
  allowOnly(router, '/runs', ['GET']);

  router.get('/runs/:runId', (req, res) => {
    const run = findRun(authOf(res).doc, req.params.runId);
    res.json(presentRun(run, stepDueMs(deps, run)));
  });
  allowOnly(router, '/runs/:runId', ['GET']);

  return router;
}
