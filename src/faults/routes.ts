import type { Router } from 'express';

import type { Ids } from '../core/ids.js';
import { operationRouter } from '../http/operation.js';
import { authOf } from '../http/request-context.js';
import { addFault, clearFaults, presentFault } from './answers.js';
import type { FaultsDeps } from './faults.js';
import { createFaultOp, deleteFaultsOp, listFaultsOp } from './operations.js';

/** /sandbox/faults: queue failures for the account's next matching /v1 requests, or set a rate limit. */
export function faultsRouter(deps: FaultsDeps & { ids: Ids }): Router {
  const api = operationRouter('/sandbox');

  api.handle(listFaultsOp, (_input, _req, res) => {
    const { doc } = authOf(res);
    res.json({
      faults: doc.faults.map(presentFault),
      rateLimit:
        doc.rateLimit === null ? null : { requests: doc.rateLimit.requests, perSeconds: doc.rateLimit.perSeconds },
    });
  });

  api.handle(createFaultOp, async ({ body }, _req, res) => {
    res.status(201).json(await addFault(deps, authOf(res).accountId, body()));
  });

  api.handle(deleteFaultsOp, async (_input, _req, res) => {
    res.json(await clearFaults(deps, authOf(res).accountId));
  });

  return api.done();
}
