/** What other features use of the auth feature. */
export {
  DASHBOARD_CLIENT_ID,
  requireAccount,
  resolveCredential,
  tokenClocks,
  type AuthenticateDeps,
} from './authenticate.js';
export { createCsrf } from './csrf.js';
export { findClient, secretsEqual, type ClientsDeps } from './clients.js';
export { oauthSandboxRouter } from './client-routes.js';
export { revokeApps } from './connected-apps.js';
export { type OAuthDeps } from './oauth-deps.js';
export { oauthRouter } from './oauth-routes.js';
export { authOperations, ConnectedApp } from './operations.js';
export { sendMessagePage, sendSignInPage } from './pages.js';
export { endSession, loginSession, SESSION_TTL_MS, type SessionDeps } from './session.js';
export { createSignIn, startUserSession, type UserSessionDeps } from './sign-in.js';
export { expireAccessTokens, pruneGrants, pruneInternalTokens, revokeGrant } from './tokens.js';
export { createPasswordCheck, signedInUser, type UsersDeps } from './users.js';
