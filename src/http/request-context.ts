import type { Request, Response } from 'express';

import type { AccountDoc, ClockSetting, DeepReadonly, JournalEntry, RequestFacts } from '../store/data.js';

/** Who is calling: set by the authentication middleware on every /v1 and /sandbox request. */
export interface AuthContext {
  accountId: string;
  via: 'api_key' | 'access_token';
  /**
   * The sandbox's own dashboard: its polling stays out of the account's request journal, and
   * the partner's injected faults and rate limit do not apply to it.
   */
  internal: boolean;
  userId: string | null;
  /**
   * The client of another account that a user of this account allowed, for an access token of
   * the consent kind (AccessTokenRecord.consented); null for the account's API key and its own
   * tokens. Such a token reaches /v1 only: the /sandbox controls refuse it.
   */
  allowedApp: string | null;
  /** The account's document as it was when the request was authenticated; changes go through the store. */
  doc: DeepReadonly<AccountDoc>;
}

export function authOf(res: Response): AuthContext {
  const auth = res.locals['auth'] as AuthContext | undefined;
  if (!auth) throw new Error('authOf called on a route without the authentication middleware');
  return auth;
}

/** The caller's context, when the request was authenticated (the request logger runs for every request). */
export function maybeAuthOf(res: Response): AuthContext | undefined {
  return res.locals['auth'] as AuthContext | undefined;
}

export function setAuth(res: Response, auth: AuthContext): void {
  res.locals['auth'] = auth;
}

/**
 * Whose request this is, for the account's request journal, when the request is not
 * authenticated as the account: an access token refused as expired, or a token request of one
 * of the account's grants. An authenticated request's subject is its AuthContext.
 */
export interface JournalSubject {
  accountId: string;
  via: JournalEntry['auth'];
  clock: DeepReadonly<ClockSetting>;
  internal: boolean;
}

export function noteJournalSubject(res: Response, subject: JournalSubject): void {
  res.locals['journalSubject'] = subject;
}

export function journalSubjectOf(res: Response): JournalSubject | undefined {
  const auth = maybeAuthOf(res);
  if (auth) return { accountId: auth.accountId, via: auth.via, clock: auth.doc.clock, internal: auth.internal };
  return res.locals['journalSubject'] as JournalSubject | undefined;
}

/** Notes what a route knows about the request for its journal entry (the readiness checks read them). */
export function noteRequestFacts(res: Response, facts: RequestFacts): void {
  const noted = res.locals['requestFacts'] as RequestFacts | undefined;
  res.locals['requestFacts'] = noted === undefined ? facts : { ...noted, ...facts };
}

export function requestFactsOf(res: Response): RequestFacts | undefined {
  return res.locals['requestFacts'] as RequestFacts | undefined;
}

const QUERY = Symbol('parsed query');
type WithQuery = { [QUERY]?: Readonly<Record<string, unknown>> };

/**
 * The request's query, parsed once: Express 5 parses the query string again at each read of
 * req.query, and a /v1 request reads it for its route and again for its journal entry.
 */
export function queryOf(req: Request, res: Response): Readonly<Record<string, unknown>> {
  const locals = res.locals as WithQuery;
  const parsed = locals[QUERY];
  if (parsed !== undefined) return parsed;
  return (locals[QUERY] = req.query as Record<string, unknown>);
}

/** Notes the request's query as parsed already (the same query text, parsed for an earlier request). */
export function noteQuery(res: Response, query: Readonly<Record<string, unknown>>): void {
  (res.locals as WithQuery)[QUERY] = query;
}
