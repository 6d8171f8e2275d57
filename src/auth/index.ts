/** What other features use of the auth feature. */
export { DASHBOARD_CLIENT_ID } from './authenticate.js';
export { loginSession, SESSION_COOKIE } from './session.js';
export { escapeHtml, html, htmlDocument, trusted, type SafeHtml } from './html.js';
export { secretsEqual } from './clients.js';
export { pruneGrants, revokeGrant } from './tokens.js';
