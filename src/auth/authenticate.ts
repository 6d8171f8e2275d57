import type { RequestHandler } from 'express';

import { AppError } from '../core/errors.js';
import type { Deps } from '../deps.js';
import { setAuth, type AuthContext } from '../http/request-context.js';

/** The clientId of the access tokens the dashboard page gets; no OAuth client of that id exists. */
export const DASHBOARD_CLIENT_ID = 'sandbox-dashboard';

/** Reads `Authorization: Bearer <credential>`; null when the header is absent or carries no credential. */
export function bearerCredential(header: string | undefined): string | null {
  if (header === undefined) return null;
  const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/**
 * Resolves an API key or an access token to its account, with production's split:
 * 401 when the header is missing or has no key; 403 when the key or token is invalid or expired.
 */
export function resolveCredential(deps: Deps, credential: string): AuthContext {
  const apiKey = deps.store.read((d) => d.apiKeys.find((k) => k.apiKey === credential));
  if (apiKey) return { accountId: apiKey.accountId, via: 'api_key', userId: null, internal: false };

  const token = deps.store.read((d) => d.accessTokens.find((t) => t.accessToken === credential));
  if (!token) {
    throw new AppError(403, 'invalid_credentials', 'The API key or access token in the Authorization header is not valid for this sandbox');
  }
  if (token.revokedAt !== null) {
    throw new AppError(403, 'token_revoked', `The access token was revoked at ${token.revokedAt}; get a new one through /oauth2/token`);
  }
  if (Date.parse(token.expiresAt) <= deps.clocks.now(token.accountId).getTime()) {
    throw new AppError(403, 'token_expired', `The access token expired at ${token.expiresAt}; refresh it through /oauth2/token`);
  }
  return { accountId: token.accountId, via: 'access_token', userId: token.userId, internal: token.clientId === DASHBOARD_CLIENT_ID };
}

export function requireAccount(deps: Deps): RequestHandler {
  return (req, res, next) => {
    const header = req.headers.authorization;
    if (header === undefined) {
      throw new AppError(401, 'missing_credentials', 'The Authorization header is missing; send "Authorization: Bearer <API key or access token>"');
    }
    const credential = bearerCredential(header);
    if (credential === null) {
      throw new AppError(401, 'missing_credentials', 'The Authorization header has no key; its form is "Bearer <API key or access token>"');
    }
    setAuth(res, resolveCredential(deps, credential));
    next();
  };
}
