import type { Router } from 'express';

import { operationRouter } from '../http/operation.js';
import { authOf } from '../http/request-context.js';
import type { Store } from '../store/store.js';
import { journalAnswer } from './answers.js';
import { listRequestsOp } from './operations.js';

/** GET /sandbox/requests: the account's recent requests, newest first, optionally filtered; error answers with the start of their body. */
export function journalRouter(deps: { store: Store }): Router {
  const api = operationRouter('/sandbox');

  api.handle(listRequestsOp, async ({ query }, _req, res) => {
    res.json(await journalAnswer(deps, authOf(res).accountId, query()));
  });

  return api.done();
}
