import type { RequestHandler } from 'express';

import type { Deps } from '../deps.js';
import { setAuth, type AuthContext } from '../http/request-context.js';
import { ACCOUNT_AUTHORIZATION, readBearerCredential, refusedCredentials } from '../http/www-authenticate.js';

/** The clientId of the access tokens the dashboard page gets; no OAuth client of that id exists. */
export const DASHBOARD_CLIENT_ID = 'sandbox-dashboard';

/**
 * Resolves an API key or an access token to its account, with production's split:
 * 401 when the header is missing or has no key; 403 when the key or token is invalid or expired.
 */
export function resolveCredential(deps: Deps, credential: string): AuthContext {
  const apiKey = deps.store.read((d) => d.apiKeys.find((k) => k.apiKey === credential));
  if (apiKey) return { accountId: apiKey.accountId, via: 'api_key', userId: null, internal: false };

  const token = deps.store.read((d) => d.accessTokens.find((t) => t.accessToken === credential));
  if (!token) {
    throw refusedCredentials('invalid_credentials', 'The API key or access token in the Authorization header is not valid for this sandbox');
  }
  if (token.revokedAt !== null) {
    throw refusedCredentials('token_revoked', `The access token was revoked at ${token.revokedAt}; get a new one through /oauth2/token`);
  }
  if (Date.parse(token.expiresAt) <= deps.clocks.now(token.accountId).getTime()) {
    throw refusedCredentials('token_expired', `The access token expired at ${token.expiresAt}; refresh it through /oauth2/token`);
  }
  return { accountId: token.accountId, via: 'access_token', userId: token.userId, internal: token.clientId === DASHBOARD_CLIENT_ID };
}

export function requireAccount(deps: Deps): RequestHandler {
  return (req, res, next) => {
    const credential = readBearerCredential(req.headers.authorization, ACCOUNT_AUTHORIZATION);
    setAuth(res, resolveCredential(deps, credential));
    next();
  };
}
