import type { Response } from 'express';

import type { AccountDoc, DeepReadonly } from '../store/data.js';

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
