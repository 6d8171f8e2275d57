import { performance } from 'node:perf_hooks';

import type { RequestHandler } from 'express';

import type { Deps } from '../deps.js';
import type { AuthContext } from '../http/request-context.js';
import type { JournalEntry } from '../store/data.js';

/** Entries kept per account; older ones are dropped so memory stays flat. */
export const JOURNAL_LIMIT_PER_ACCOUNT = 200;

/**
 * One log line per request (method, path, status, duration, account) and, for calls made
 * with an account's credentials, an entry in that account's request journal.
 */
export function requestLogger(deps: Deps): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    const path = req.path;
    res.on('finish', () => {
      const durationMs = Math.round((performance.now() - started) * 10) / 10;
      const auth = res.locals['auth'] as AuthContext | undefined;
      deps.logger.info('request', { method: req.method, path, status: res.statusCode, durationMs, accountId: auth?.accountId ?? null });
      if (!auth || auth.internal || (req.method === 'GET' && path.startsWith('/sandbox/requests'))) return;
      const entry: JournalEntry = {
        accountId: auth.accountId,
        method: req.method,
        path,
        query: { ...(req.query as Record<string, unknown>) },
        status: res.statusCode,
        time: deps.clocks.now(auth.accountId).toISOString(),
        durationMs,
        auth: auth.via,
      };
      void deps.store.write((d) => appendBounded(d.journal, entry), { durable: false });
    });
    next();
  };
}

function appendBounded(journal: JournalEntry[], entry: JournalEntry): void {
  journal.push(entry);
  let count = 0;
  for (const e of journal) if (e.accountId === entry.accountId) count++;
  if (count <= JOURNAL_LIMIT_PER_ACCOUNT) return;
  const oldest = journal.findIndex((e) => e.accountId === entry.accountId);
  journal.splice(oldest, 1);
}
