import { Router } from 'express';

import { invalidParameter } from '../core/errors.js';
import type { Deps } from '../deps.js';
import { authOf } from '../http/request-context.js';
import { allowOnly, queryString } from '../http/routing.js';
import { JOURNAL_LIMIT_PER_ACCOUNT } from './journal.js';

/** GET /sandbox/requests: the account's recent requests, newest first, optionally filtered. */
export function journalRouter(deps: Deps): Router {
  const router = Router({ strict: true });

  router.get('/requests', (req, res) => {
    const { accountId } = authOf(res);
    const limitText = queryString(req.query, 'limit');
    const method = queryString(req.query, 'method')?.toUpperCase();
    const pathPrefix = queryString(req.query, 'path');
    const statusText = queryString(req.query, 'status');
    const limit = limitText === undefined ? JOURNAL_LIMIT_PER_ACCOUNT : Number(limitText);
    if (!Number.isInteger(limit) || limit < 1 || limit > JOURNAL_LIMIT_PER_ACCOUNT) {
      throw invalidParameter('limit', `limit must be a whole number from 1 to ${JOURNAL_LIMIT_PER_ACCOUNT}`);
    }
    if (statusText !== undefined && !/^[1-5]\d\d$/.test(statusText)) throw invalidParameter('status', 'status must be an HTTP status code such as 404');
    const requests = deps.store.read((d) =>
      d.journal
        .filter(
          (e) =>
            e.accountId === accountId &&
            (method === undefined || e.method === method) &&
            (pathPrefix === undefined || e.path.startsWith(pathPrefix)) &&
            (statusText === undefined || e.status === Number(statusText)),
        )
        .slice(-limit)
        .reverse()
        .map(({ accountId: _omit, ...entry }) => entry),
    );
    res.json({ requests });
  });
  allowOnly(router, '/requests', ['GET']);

  return router;
}
