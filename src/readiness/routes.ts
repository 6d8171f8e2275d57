import type { Router } from 'express';

import { operationRouter } from '../http/operation.js';
import { authOf } from '../http/request-context.js';
import { drillAnswer, readinessAnswer, resetReadinessAnswer, type ReadinessAnswersDeps } from './answers.js';
import { getReadinessOp, resetReadinessOp, runDrillOp } from './operations.js';

/** /sandbox/readiness: the report, a new window, and the drills. */
export function readinessSandboxRouter(deps: ReadinessAnswersDeps): Router {
  const api = operationRouter('/sandbox');

  api.handle(getReadinessOp, async (_input, _req, res) => {
    res.json(await readinessAnswer(deps, authOf(res).accountId));
  });

  api.handle(resetReadinessOp, async ({ body }, _req, res) => {
    body();
    res.json(await resetReadinessAnswer(deps, authOf(res).accountId));
  });

  api.handle(runDrillOp, async ({ body }, _req, res) => {
    res.json(await drillAnswer(deps, authOf(res), body().drill));
  });

  return api.done();
}
