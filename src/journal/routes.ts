import { Router } from 'express';

import { invalidParameter } from '../core/errors.js';
import { authOf } from '../http/request-context.js';
import { allowOnly, queryString } from '../http/routing.js';
import { JOURNAL_LIMIT, type Store } from '../store/store.js';

/** GET /sandbox/requests: the account's recent requests, newest first, optionally filtered; error answers with the start of their body. */
export function journalRouter(deps: { store: Store }): Router {
  const router = Router({ strict: true });

  router.get('/requests', async (req, res) => {
    const { accountId } = authOf(res);
    const limitText = queryString(req.query, 'limit');
    const method = queryString(req.query, 'method')?.toUpperCase();
    const pathPrefix = queryString(req.query, 'path');
    const statusText = queryString(req.query, 'status');
    const limit = limitText === undefined ? JOURNAL_LIMIT : Number(limitText);
    if (!Number.isInteger(limit) || limit < 1 || limit > JOURNAL_LIMIT) {
      throw invalidParameter('limit', `limit must be a whole number from 1 to ${JOURNAL_LIMIT}`);
    }
    if (statusText !== undefined && !/^[1-5]\d\d$/.test(statusText)) throw invalidParameter('status', 'status must be an HTTP status code such as 404');
    // Filters apply to the bounded journal, newest first; `limit` caps the answer.
    const requests = (await deps.store.journal.list(accountId, JOURNAL_LIMIT))
      .filter(
        (e) =>
          (method === undefined || e.method === method) &&
          (pathPrefix === undefined || e.path.startsWith(pathPrefix)) &&
          (statusText === undefined || e.status === Number(statusText)),
      )
      .slice(0, limit)
      // errorBody: null for answers below 400, so every entry has the same keys.
      .map(({ accountId: _omit, errorBody, ...entry }) => ({ ...entry, errorBody: errorBody ?? null }));
    res.json({ requests });
  });
  allowOnly(router, '/requests', ['GET']);

  return router;
}
