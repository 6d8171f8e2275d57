import { Router } from 'express';

import { parseClockChange } from '../clock/clock-request.js';
import { changeAccountClock } from '../clock/time-travel.js';
import type { Deps } from '../deps.js';
import { authOf } from '../http/request-context.js';
import { allowOnly } from '../http/routing.js';
import { presentRun, presentScenario, presentScenarioSummary } from './presenter.js';
import { findOwnRun, findScenario, parseRunRequest, scenarioWork, startRun, stepDueMs } from './runner.js';

/** /sandbox/clock, /sandbox/scenarios and /sandbox/runs. */
export function scenariosSandboxRouter(deps: Deps): Router {
  const router = Router({ strict: true });
  // Scenario steps first, then deliveries, at each instant the clock stops at.
  const work = [scenarioWork(deps), deps.dispatcher];

  router.get('/clock', (_req, res) => {
    res.json(deps.clocks.state(authOf(res).accountId));
  });

  router.post('/clock', async (req, res) => {
    const { accountId } = authOf(res);
    const change = parseClockChange(req.body);
    res.json(await changeAccountClock(deps, accountId, change, work));
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
    const { accountId } = authOf(res);
    const runs = deps.store.read((d) =>
      d.runs
        .filter((r) => r.accountId === accountId)
        .map((r) => presentRun(r, stepDueMs(deps, r)))
        .reverse(),
    );
    res.json({ runs });
  });
  allowOnly(router, '/runs', ['GET']);

  router.get('/runs/:runId', (req, res) => {
    const { accountId } = authOf(res);
    res.json(deps.store.read((d) => {
      const run = findOwnRun(d, accountId, req.params.runId);
      return presentRun(run, stepDueMs(deps, run));
    }));
  });
  allowOnly(router, '/runs/:runId', ['GET']);

  return router;
}
