import type { Router } from 'express';

import { accountNowMs } from '../clock/index.js';
import type { Ids } from '../core/ids.js';
import { operationRouter } from '../http/operation.js';
import { authOf } from '../http/request-context.js';
import type { FaultRecord } from '../store/data.js';
import type { FaultsDeps } from './faults.js';
import { createFaultOp, deleteFaultsOp, listFaultsOp } from './operations.js';

/** /sandbox/faults: queue failures for the account's next matching /v1 requests, or set a rate limit. */
export function faultsRouter(deps: FaultsDeps & { ids: Ids }): Router {
  const api = operationRouter('/sandbox');

  api.handle(listFaultsOp, (_input, _req, res) => {
    const { doc } = authOf(res);
    res.json({
      faults: doc.faults.map(({ accountId: _a, remaining, ...f }) => ({ ...f, times: remaining })),
      rateLimit: doc.rateLimit === null ? null : { requests: doc.rateLimit.requests, perSeconds: doc.rateLimit.perSeconds },
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
    const fault = await deps.store.accounts.update(accountId, (d) => {
      const record: FaultRecord = {
        faultId,
        accountId,
        createdAt: new Date(accountNowMs(deps.clock, d.clock)).toISOString(),
        method: input.method?.toUpperCase() ?? null,
        path: input.path ?? null,
        status: input.status ?? null,
        body: input.body ?? null,
        delayMs: input.delayMs ?? 0,
        remaining: input.times === undefined ? 1 : input.times,
      };
      d.faults.push(record);
      return record;
    });
    const { accountId: _a, remaining, ...shown } = fault;
    res.status(201).json({ ...shown, times: remaining });
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
