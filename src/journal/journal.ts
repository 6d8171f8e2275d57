import { performance } from 'node:perf_hooks';

import type { Express, RequestHandler, Response } from 'express';

import { accountNow } from '../clock/index.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { afterResponse } from '../http/after-response.js';
import { maybeAuthOf } from '../http/request-context.js';
import { accountChannel, type AccountEvent } from '../live/index.js';
import type { JournalEntry } from '../store/data.js';
import type { Store } from '../store/store.js';

export interface JournalDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
}

/** How much of an error answer's body an entry keeps: error bodies are a sentence or two of JSON. */
export const JOURNAL_ERROR_BODY_LIMIT = 1000;

function bodyText(body: unknown): string {
  if (typeof body === 'string') return body;
  if (Buffer.isBuffer(body)) return body.toString('utf8');
  return body === undefined || body === null ? '' : JSON.stringify(body);
}

const excerpt = (text: string): string => (text.length > JOURNAL_ERROR_BODY_LIMIT ? `${text.slice(0, JOURNAL_ERROR_BODY_LIMIT)}…` : text);

const ERROR_BODY = Symbol('error answer body');
type WithErrorBody = Response & { [ERROR_BODY]?: string };

/**
 * Makes every response of `app` note the body of its error answer as it is sent. Every JSON
 * answer (res.json, the error handler's included) goes through res.send, so wrapping send on
 * the app's response prototype, once, sees them all without touching each response.
 */
export function noteErrorBodies(app: Express): void {
  const send = app.response.send;
  app.response.send = function (this: WithErrorBody, body?: unknown) {
    if (this.statusCode >= 400 && this[ERROR_BODY] === undefined) this[ERROR_BODY] = excerpt(bodyText(body));
    return send.call(this, body);
  } as Response['send'];
}

/**
 * For calls made with an account's credentials, an entry in that account's request journal:
 * an O(1) append to a bounded list, after the response is sent. Mounted after authentication;
 * error bodies are kept only in an app set up with noteErrorBodies.
 * The account's event stream hears of it (published by the store with the entry), so an open
 * dashboard shows the request as it happens.
 */
export function recordInJournal(deps: JournalDeps): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    const path = req.baseUrl + req.path;
    afterResponse(res, () => {
      const durationMs = Math.round((performance.now() - started) * 10) / 10;
      const auth = maybeAuthOf(res);
      // Reading the journal, and the plumbing of `water-sandbox listen` (a reply per webhook), stay out of it.
      if (!auth || auth.internal || (req.method === 'GET' && path.startsWith('/sandbox/requests')) || path.startsWith('/sandbox/relays')) return;
      const body = res.statusCode >= 400 ? (res as WithErrorBody)[ERROR_BODY] : undefined;
      const entry: JournalEntry = {
        accountId: auth.accountId,
        method: req.method,
        path,
        query: { ...(req.query as Record<string, unknown>) },
        status: res.statusCode,
        time: accountNow(deps.clock, auth.doc.clock).toISOString(),
        durationMs,
        auth: auth.via,
        ...(body === undefined ? {} : { errorBody: body }),
      };
      const event: AccountEvent = { type: 'request', method: entry.method, path, status: entry.status };
      deps.store.journal
        .append(auth.accountId, entry, { channel: accountChannel(auth.accountId), message: event })
        .catch((error: unknown) => deps.logger.warn('journal append failed', { err: error }));
    });
    next();
  };
}
