/** What other features use of the auth feature. */
export { DASHBOARD_CLIENT_ID, requireAccount, resolveCredential, type AuthenticateDeps } from './authenticate.js';
export { findClient, secretsEqual, type ClientsDeps } from './clients.js';
export { oauthRouter, oauthSandboxRouter, type OAuthDeps } from './oauth-routes.js';
export { authOperations } from './operations.js';
export { loginSession, sessionCall, SESSION_COOKIE, SESSION_TTL_MS, type SessionDeps } from './session.js';
export { createSignIn, startUserSession } from './sign-in.js';
export { expireAccessTokens, pruneGrants, revokeGrant } from './tokens.js';
export { createPasswordCheck, signedInUser, type UsersDeps } from './users.js';
