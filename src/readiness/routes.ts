import type { Router } from 'express';

import { notFound } from '../core/errors.js';
import { operationRouter } from '../http/operation.js';
import { authOf } from '../http/request-context.js';
import { publishAccountEvent } from '../live/index.js';
import { runDrill, type DrillsDeps } from './drills.js';
import { getReadinessOp, resetReadinessOp, runDrillOp } from './operations.js';
import type { Readiness } from './service.js';

export interface ReadinessRoutesDeps extends DrillsDeps {
  readiness: Readiness;
}

/** /sandbox/readiness: the report, a new window, and the drills. */
export function readinessSandboxRouter(deps: ReadinessRoutesDeps): Router {
  const api = operationRouter('/sandbox');

  const reportOf = async (accountId: string) => {
    const report = await deps.readiness.report(accountId);
    if (!report) throw notFound('The account no longer exists');
    return report;
  };

  api.handle(getReadinessOp, async (_input, _req, res) => {
    res.json(await reportOf(authOf(res).accountId));
  });

  api.handle(resetReadinessOp, async ({ body }, _req, res) => {
    const { accountId } = authOf(res);
    body();
    await deps.readiness.reset(accountId);
    await publishAccountEvent(deps.store, accountId, { type: 'readiness' });
    res.json(await reportOf(accountId));
  });

  api.handle(runDrillOp, async ({ body }, _req, res) => {
    const { accountId, doc } = authOf(res);
    const outcome = await runDrill(deps, accountId, doc, body().drill);
    await publishAccountEvent(deps.store, accountId, { type: 'readiness' });
    res.json(outcome);
  });

  return api.done();
}
