import type { RequestHandler, Router } from 'express';

import { operationRouter } from '../http/operation.js';
import { createAuthorizationHost } from './authorization-host.js';
import { consentRoutes } from './consent-routes.js';
import { loginRoutes } from './login-routes.js';
import { logoutRoutes } from './logout-routes.js';
import type { OAuthDeps } from './oauth-deps.js';
import { revokeRoutes } from './revoke-routes.js';
import { tokenRoutes } from './token-routes.js';

/**
 * The authorization host: /login (with its consent page), /logout, /oauth2/token, /oauth2/revoke.
 * `recordRequest` journals token requests for the account of their grant.
 */
export function oauthRouter(deps: OAuthDeps, recordRequest?: RequestHandler): Router {
  const api = operationRouter('');
  const host = createAuthorizationHost(deps);
  loginRoutes(api, host);
  consentRoutes(api, host);
  logoutRoutes(api, host);
  tokenRoutes(api, deps, recordRequest);
  revokeRoutes(api, deps);
  return api.done();
}
