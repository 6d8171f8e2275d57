import type { Router } from 'express';

import { operationRouter } from '../http/operation.js';
import { authOf } from '../http/request-context.js';
import { JOURNAL_LIMIT, type Store } from '../store/store.js';
import { listRequestsOp } from './operations.js';

/** GET /sandbox/requests: the account's recent requests, newest first, optionally filtered; error answers with the start of their body. */
export function journalRouter(deps: { store: Store }): Router {
  const api = operationRouter('/sandbox');

  api.handle(listRequestsOp, async ({ query }, _req, res) => {
    const { accountId } = authOf(res);
    const { limit = JOURNAL_LIMIT, method, path: pathPrefix, status } = query();
    // Filters apply to the bounded journal, newest first; `limit` caps the answer.
    const requests = (await deps.store.journal.list(accountId, JOURNAL_LIMIT))
      .filter(
        (e) =>
          (method === undefined || e.method === method) &&
          (pathPrefix === undefined || e.path.startsWith(pathPrefix)) &&
          (status === undefined || e.status === status),
      )
      .slice(0, limit)
      // errorBody: null for answers below 400, so every entry has the same keys.
      .map((e) => ({
        method: e.method,
        path: e.path,
        query: e.query,
        status: e.status,
        time: e.time,
        durationMs: e.durationMs,
        auth: e.auth,
        errorBody: e.errorBody ?? null,
      }));
    res.json({ requests });
  });

  return api.done();
}
