import type { z } from 'zod';

import { JOURNAL_LIMIT, type Store } from '../store/store.js';
import type { JournalList, JournalQuery } from './operations.js';

/**
 * What GET /sandbox/requests answers: the account's recent requests, newest first, filtered;
 * error answers with the start of their body.
 */
export async function journalAnswer(
  deps: { store: Store },
  accountId: string,
  query: z.output<typeof JournalQuery>,
): Promise<z.output<typeof JournalList>> {
  const { limit = JOURNAL_LIMIT, method, path: pathPrefix, status, errorsOnly = false } = query;
  // Filters apply to the bounded journal, newest first; `limit` caps the answer.
  const requests = (await deps.store.journal.list(accountId, JOURNAL_LIMIT))
    .filter(
      (e) =>
        (method === undefined || e.method === method) &&
        (pathPrefix === undefined || e.path.startsWith(pathPrefix)) &&
        (status === undefined || e.status === status) &&
        (!errorsOnly || e.status >= 400),
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
  return { requests };
}
