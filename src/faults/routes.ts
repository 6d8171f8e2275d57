import type { Router } from 'express';

import { accountNowMs } from '../clock/index.js';
import type { Ids } from '../core/ids.js';
import { operationRouter } from '../http/operation.js';
import { authOf } from '../http/request-context.js';
import type { DeepReadonly, FaultRecord } from '../store/data.js';
import { queueFault, type FaultsDeps } from './faults.js';
import { createFaultOp, deleteFaultsOp, listFaultsOp } from './operations.js';

function presentFault(fault: DeepReadonly<FaultRecord>) {
  const { accountId: _a, remaining, retryAfter, ...shown } = fault;
  return { ...shown, retryAfter: retryAfter ?? null, times: remaining };
}

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
    const { accountId } = authOf(res);
    const input = body();
    if (input.rateLimit !== undefined) {
      const limit = input.rateLimit;
      await deps.store.accounts.update(accountId, (d) => {
        d.rateLimit = { ...limit, anchorMs: accountNowMs(deps.clock, d.clock) };
      });
      res.status(201).json({ rateLimit: limit });
      return;
    }
    const faultId = deps.ids.uuid();
    const fault = await deps.store.accounts.update(accountId, (d) =>
      queueFault(d, input, { faultId, nowMs: accountNowMs(deps.clock, d.clock), maxFaults: deps.config.limits.faults }),
    );
    res.status(201).json(presentFault(fault));
  });

  api.handle(deleteFaultsOp, async (_input, _req, res) => {
    const { accountId } = authOf(res);
    const removed = await deps.store.accounts.update(accountId, (d) => {
      const count = d.faults.length + (d.rateLimit === null ? 0 : 1);
      d.faults = [];
      d.rateLimit = null;
      return count;
    });
    res.json({ removed });
  });

  return api.done();
}
