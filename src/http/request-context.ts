import type { Response } from 'express';

/** Who is calling: set by the authentication middleware on every /v1 and /sandbox request. */
export interface AuthContext {
  accountId: string;
  via: 'api_key' | 'access_token';
  userId: string | null;
}

export function authOf(res: Response): AuthContext {
  const auth = res.locals['auth'] as AuthContext | undefined;
  if (!auth) throw new Error('authOf called on a route without the authentication middleware');
  return auth;
}

export function setAuth(res: Response, auth: AuthContext): void {
  res.locals['auth'] = auth;
}
