import { performance } from 'node:perf_hooks';

import type { RequestHandler } from 'express';

import { accountNow } from '../clock/index.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { maybeAuthOf } from '../http/request-context.js';
import type { JournalEntry } from '../store/data.js';
import type { Store } from '../store/store.js';

export interface JournalDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
}

/**
 * For calls made with an account's credentials, an entry in that account's request journal:
 * an O(1) append to a bounded list, after the response is sent.
 */
export function recordInJournal(deps: JournalDeps): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    const path = req.path;
    res.on('finish', () => {
      const durationMs = Math.round((performance.now() - started) * 10) / 10;
      const auth = maybeAuthOf(res);
      // Reading the journal, and the plumbing of `water-sandbox listen` (a reply per webhook), stay out of it.
      if (!auth || auth.internal || (req.method === 'GET' && path.startsWith('/sandbox/requests')) || path.startsWith('/sandbox/relays')) return;
      const entry: JournalEntry = {
        accountId: auth.accountId,
        method: req.method,
        path,
        query: { ...(req.query as Record<string, unknown>) },
        status: res.statusCode,
        time: accountNow(deps.clock, auth.doc.clock).toISOString(),
        durationMs,
        auth: auth.via,
      };
      deps.store.journal.append(auth.accountId, entry).catch((error: unknown) => deps.logger.warn('journal append failed', { err: error }));
    });
    next();
  };
}
