import { performance } from 'node:perf_hooks';

import type { Express, RequestHandler, Response } from 'express';

import { accountMsAt } from '../clock/index.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { afterResponse } from '../http/after-response.js';
import { journalSubjectOf, queryOf, requestFactsOf } from '../http/request-context.js';
import { requestPath } from '../http/request-path.js';
import { accountChannel, type AccountEvent } from '../live/index.js';
import type { JournalEntry, RequestFacts } from '../store/data.js';
import type { Store } from '../store/store.js';

/** JSON.stringify, typed as it behaves: no text for undefined or a function. */
const stringify: (value: unknown) => string | undefined = JSON.stringify;
const jsonOrEmpty = (value: unknown): string => stringify(value) ?? '';

export interface JournalDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** Told of each entry handed to the store (the readiness report reads the journal as it fills). */
  onAppend?: (accountId: string) => void;
}

/** How much of an error answer's body an entry keeps: error bodies are a sentence or two of JSON. */
export const JOURNAL_ERROR_BODY_LIMIT = 1000;

function bodyText(body: unknown): string {
  if (typeof body === 'string') return body;
  if (Buffer.isBuffer(body)) return body.toString('utf8');
  return body === undefined || body === null ? '' : JSON.stringify(body);
}

/** What an entry keeps of an error answer's body, as res.send got it: its text, cut after JOURNAL_ERROR_BODY_LIMIT characters. */
export function errorBodyExcerpt(body: unknown): string {
  const text = bodyText(body);
  return text.length > JOURNAL_ERROR_BODY_LIMIT ? `${text.slice(0, JOURNAL_ERROR_BODY_LIMIT)}…` : text;
}

/**
 * How much of a request's path and query an entry keeps, in characters: a request line may take
 * 16 kB, and an account's 200 entries are kept (in memory while the account is in use).
 */
export const JOURNAL_PATH_LIMIT = 1000;
export const JOURNAL_QUERY_LIMIT = 2000;

const cut = (text: string, limit: number): string => (text.length > limit ? `${text.slice(0, limit)}…` : text);

/**
 * The query as an entry keeps it: its parameters in order while their JSON fits in
 * JOURNAL_QUERY_LIMIT characters, each value (or each of its values) cut at a tenth of that.
 */
export function keptQuery(query: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  let size = 2;
  const valueLimit = JOURNAL_QUERY_LIMIT / 10;
  const shorten = (value: unknown): unknown =>
    typeof value === 'string'
      ? cut(value, valueLimit)
      : Array.isArray(value)
        ? value.map(shorten)
        : cut(jsonOrEmpty(value), valueLimit);
  for (const [name, value] of Object.entries(query)) {
    const key = cut(name, valueLimit);
    const shown = shorten(value);
    size += JSON.stringify(key).length + jsonOrEmpty(shown).length + 2;
    if (size > JOURNAL_QUERY_LIMIT) break;
    kept[key] = shown;
  }
  return kept;
}

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
    if (this.statusCode >= 400 && this[ERROR_BODY] === undefined) this[ERROR_BODY] = errorBodyExcerpt(body);
    return send.call(this, body);
  } as Response['send'];
}

/** The answer's Retry-After in seconds, when it has one (429 and 503 answers). */
function retryAfterOf(res: Response): number | undefined {
  if (res.statusCode !== 429 && res.statusCode !== 503) return undefined;
  const seconds = Number(res.getHeader('Retry-After'));
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}

/**
 * For calls made with an account's credentials, an entry in that account's request journal:
 * an O(1) append to a bounded list, after the response is sent. The entry belongs to the
 * account that authenticated, or to the one a route names (an access token refused as expired,
 * a token request of the account's grant: see noteJournalSubject). Error bodies are kept only
 * in an app set up with noteErrorBodies; what routes noted (noteRequestFacts) is kept with it.
 * The account's event stream hears of it (published by the store with the entry), so an open
 * dashboard shows the request as it happens.
 */
export function recordInJournal(deps: JournalDeps): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    // Read from the process clock (not derived from the duration): a test's manual clock stands still during a request.
    const startedAtMs = deps.clock.now().getTime();
    const path = requestPath(req);
    afterResponse(res, () => {
      const durationMs = Math.round((performance.now() - started) * 10) / 10;
      const subject = journalSubjectOf(res);
      // Reading the journal, and the plumbing of `water-sandbox listen` (a reply per webhook), stay out of it.
      if (
        !subject ||
        subject.internal ||
        (req.method === 'GET' && path.startsWith('/sandbox/requests')) ||
        path.startsWith('/sandbox/relays')
      )
        return;
      // Noted for answers of 400 or more only (noteErrorBodies).
      const body = (res as WithErrorBody)[ERROR_BODY];
      const atMs = deps.clock.now().getTime();
      const retryAfter = retryAfterOf(res);
      const noted = requestFactsOf(res);
      const facts: RequestFacts | undefined = retryAfter === undefined ? noted : { ...noted, retryAfter };
      const entry: JournalEntry = {
        accountId: subject.accountId,
        method: req.method,
        path: cut(path, JOURNAL_PATH_LIMIT),
        query: keptQuery(queryOf(req, res)),
        status: res.statusCode,
        time: new Date(accountMsAt(atMs, subject.clock)).toISOString(),
        startedAtMs,
        atMs,
        durationMs,
        auth: subject.via,
        ...(body === undefined ? {} : { errorBody: body }),
        ...(facts === undefined ? {} : { facts }),
      };
      const event: AccountEvent = { type: 'request', method: entry.method, path, status: entry.status };
      deps.store.journal
        .append(subject.accountId, entry, { channel: accountChannel(subject.accountId), message: event })
        .catch((error: unknown) => deps.logger.warn('journal append failed', { err: error }));
      deps.onAppend?.(subject.accountId);
    });
    next();
  };
}
