import { z } from 'zod';

import { DEMO } from '../http/demo-examples.js';
import { operationsTagged } from '../http/operation.js';
import { isoInstant } from '../http/schemas.js';
import { registrationSchema } from './registration.js';

/** A form or query parameter of the authorization host: at most once, as text. */
const param = (name: string, description: string) =>
  z
    .string({ error: `${name} must be given once, as text` })
    .optional()
    .meta({ description });

const authorizationParams = {
  client_id: param('client_id', 'The client_id of a registered application (demo-client on the demo data).'),
  redirect_uri: param('redirect_uri', 'One of the redirect URIs registered for the client, exactly.'),
  response_type: param('response_type', 'code (the authorization-code flow).'),
  state: param('state', 'Any value; sent back with the code.'),
  scope: param('scope', 'Accepted and ignored (production documents no scopes); carried through the forms.'),
  code_challenge: param(
    'code_challenge',
    'PKCE (RFC 7636): accepted and not checked (production documents no PKCE); carried through the forms.',
  ),
  code_challenge_method: param('code_challenge_method', 'PKCE: accepted and not checked; carried through the forms.'),
};

/** GET /login: the authorization request (RFC 6749 section 4.1.1). */
export const AuthorizationQuery = z
  .looseObject(authorizationParams)
  .meta({ required: ['client_id', 'redirect_uri', 'response_type'] });

/** POST /login: the sign-in form (the page posts it with its CSRF token). */
export const LoginForm = z
  .looseObject({
    ...authorizationParams,
    csrf_token: param('csrf_token', 'The token of the sign-in page this browser was shown.'),
    email: param('email', "The user's e-mail address (demo@example.com)."),
    password: param('password', "The user's password (demo-password)."),
  })
  .meta({ required: ['client_id', 'redirect_uri', 'response_type', 'csrf_token', 'email', 'password'] });

/** POST /login/consent: the consent page's form (Allow or Deny). */
export const ConsentForm = z
  .looseObject({
    ...authorizationParams,
    csrf_token: param('csrf_token', 'The token of the consent page this browser was shown.'),
    decision: param('decision', 'allow or deny: the button the user pressed.').meta({ enum: ['allow', 'deny'] }),
  })
  .meta({ required: ['client_id', 'redirect_uri', 'response_type', 'csrf_token', 'decision'] });

const logoutParams = {
  client_id: param('client_id', 'The client_id of a registered application.'),
  logout_uri: param('logout_uri', 'One of the sign-out URIs registered for the client, exactly.'),
};

/** GET /logout. */
export const LogoutQuery = z.looseObject(logoutParams).meta({ required: ['client_id', 'logout_uri'] });

/** POST /logout: the sign-out confirmation page's form. */
export const LogoutForm = z
  .looseObject({
    ...logoutParams,
    csrf_token: param('csrf_token', 'The token of the sign-out page this browser was shown.'),
  })
  .meta({ required: ['client_id', 'logout_uri', 'csrf_token'] });

/** POST /oauth2/revoke: RFC 7009 section 2.1. */
export const RevokeForm = z
  .looseObject({
    token: param('token', 'The access token or refresh token to revoke.'),
    token_type_hint: param(
      'token_type_hint',
      'access_token or refresh_token: where to look first (the other kind is searched too).',
    ).meta({ enum: ['access_token', 'refresh_token'] }),
    client_id: param(
      'client_id',
      'The client, when not in the Authorization header (with client_secret), or to match it.',
    ),
    client_secret: param('client_secret', 'The client secret, when not in the Authorization header.'),
  })
  .meta({ required: ['token'] });

/** POST /oauth2/token: RFC 6749 sections 4.1.3 and 6. Which parameters a grant needs is checked after the client is authenticated. */
export const TokenForm = z
  .looseObject({
    grant_type: param('grant_type', 'authorization_code or refresh_token.').meta({
      enum: ['authorization_code', 'refresh_token'],
    }),
    code: param('code', 'With authorization_code: the code the redirect carried.'),
    redirect_uri: param('redirect_uri', 'With authorization_code: the redirect_uri of the authorization request.'),
    refresh_token: param(
      'refresh_token',
      'With refresh_token: the latest refresh token (each refresh returns a new one).',
    ),
    client_id: param(
      'client_id',
      'The client, when not in the Authorization header (with client_secret), or to match it.',
    ),
    client_secret: param(
      'client_secret',
      'The client secret, when not in the Authorization header (client_secret_post).',
    ),
  })
  .meta({ required: ['grant_type'] });

/** RFC 6749 section 5.1, exactly these keys. */
export const TokenResponseBody = z
  .strictObject({
    access_token: z
      .string()
      .meta({ description: 'Send it as Authorization: Bearer <access_token> to /v1 and /sandbox.' }),
    refresh_token: z.string().meta({ description: 'Single use: each refresh returns a new one.' }),
    token_type: z.literal('Bearer'),
    expires_in: z.int().min(1).meta({ description: 'Seconds (ACCESS_TOKEN_TTL, 3600 by default).' }),
  })
  .meta({ description: "The token response: production's keys, exactly." });

export const RegisteredClient = z
  .strictObject({
    client_id: z.string(),
    client_secret: z.string(),
    name: z.string(),
    companyName: z.string(),
    email: z.string(),
    phone: z.string(),
    applicationName: z.string(),
    applicationWebsite: z.string(),
    description: z.string(),
    redirectUri: z.string(),
    signOutUri: z.string(),
    postTokenToRedirectUri: z.boolean(),
    createdAt: isoInstant,
  })
  .meta({ description: 'A registered OAuth client: its credentials and what was registered.' });

const hostOperation = operationsTagged('Authorization host', 'none');
const html = { html: true } as const;
const noStore = { 'Cache-Control': 'no-store' };

export const loginPageOp = hostOperation('showLogin', 'GET /login', {
  secrets: "an authorization code in its redirect, and the form's CSRF token",
  summary: 'The sign-in page (authorization request)',
  description:
    "Production's authorization endpoint: RFC 6749 section 4.1.1. Shows the sign-in form; a browser already signed in is sent straight back to redirect_uri with a code, " +
    "unless the client was registered by another account than the user's: then it is shown a consent page (Allow or Deny, POST /login/consent). " +
    'A request that cannot be trusted with a redirect (unknown client, unregistered redirect_uri, response_type not code) gets an error page.',
  query: AuthorizationQuery,
  queryExample: { response_type: 'code', client_id: DEMO.clientId, redirect_uri: DEMO.redirectUri },
  responses: {
    200: {
      description:
        'The sign-in form; or, for a browser already signed in, the consent page of a client another account registered.',
      ...html,
    },
    302: {
      description: 'Already signed in: redirect to redirect_uri?code=...&state=...',
      headers: { Location: 'redirect_uri with code (and state).', ...noStore },
    },
  },
  errors: {
    400: 'An HTML error page: the request is not a valid authorization request (it says which parameter and why).',
  },
  sandbox:
    "The error pages name the registered redirect URIs, to help partners fix their configuration. The consent page is the sandbox's: it shields the accounts of a shared sandbox from one another.",
});

export const loginOp = hostOperation('submitLogin', 'POST /login', {
  secrets: 'an authorization code in its redirect',
  summary: 'Sign in (the form of the sign-in page)',
  description:
    'On success, redirects to redirect_uri with a single-use code (AUTHORIZATION_CODE_TTL, 300 s), or, for a client another account registered, shows the consent page. ' +
    'A wrong e-mail or password shows the form again (422).',
  body: {
    schema: LoginForm,
    form: true,
    required: false,
    example: {
      response_type: 'code',
      client_id: DEMO.clientId,
      redirect_uri: DEMO.redirectUri,
      csrf_token: '<from the page>',
      email: 'demo@example.com',
      password: 'demo-password',
    },
  },
  responses: {
    200: { description: 'Signed in, and the client was registered by another account: the consent page.', ...html },
    302: {
      description: 'Signed in: redirect to redirect_uri?code=...&state=...',
      headers: { Location: 'redirect_uri with code (and state).', ...noStore },
    },
  },
  errors: {
    400: 'An HTML error page: not a valid authorization request.',
    403: 'An HTML error page: the form was not sent from a current sign-in page of this browser (CSRF).',
    422: 'The form again: e-mail or password missing or wrong.',
    429: 'The form again: too many failed sign-ins from this address or for this account; Retry-After says when to try again.',
  },
});

export const consentOp = hostOperation('answerConsent', 'POST /login/consent', {
  secrets: 'an authorization code in its redirect',
  summary: "Allow or deny an application of another account (the consent page's form)",
  description:
    'Allow: redirects to redirect_uri with a code for the signed-in user. Deny: redirects to redirect_uri with error=access_denied (and the state), as RFC 6749 section 4.1.2.1 says. ' +
    "Either needs the consent page's CSRF token; nothing is issued without Allow.",
  body: {
    schema: ConsentForm,
    form: true,
    required: false,
    example: {
      response_type: 'code',
      client_id: '<the client>',
      redirect_uri: 'https://partner.example/callback',
      csrf_token: '<from the page>',
      decision: 'allow',
    },
  },
  responses: {
    302: {
      description: 'redirect_uri?code=...&state=... (allow) or redirect_uri?error=access_denied&state=... (deny).',
      headers: { Location: 'redirect_uri with code or error (and state).', ...noStore },
    },
  },
  errors: {
    400: 'An HTML error page: not a valid authorization request, or decision is neither allow nor deny.',
    403: 'An HTML error page: the form was not sent from a current consent page of this browser for this very request (CSRF: its token is bound to every parameter and used once), the page was answered already or is older than 15 minutes, or the browser is no longer signed in.',
    409: 'An HTML error page: the account has MAX_CONNECTED_APPS applications of other accounts connected already (a hosted sandbox: 20); revoke one first. Nothing is issued.',
  },
  sandbox:
    'Production has no consent page; the sandbox asks before an application registered by another account gets a code, and keeps the answer until the account revokes the application.',
});

export const logoutOp = hostOperation('logout', 'GET /logout', {
  secrets: "the sign-out page's CSRF token",
  summary: 'Sign out and go to a registered sign-out URI',
  description:
    "Production's sign-out. When this browser's session signed in to the client (got a code for it) and the client is the fixtures' or one of the signed-in user's own account, the session ends and the browser goes to logout_uri. " +
    'Otherwise nothing ends on a GET: a signed-in browser is asked first ("Sign out of the sandbox?", a POST with a CSRF token), and a browser not signed in is told so; ' +
    "there is no redirect to another account's sign-out URI. A fixture client's logout_uri is followed for a browser that is not signed in.",
  query: LogoutQuery,
  queryExample: { client_id: DEMO.clientId, logout_uri: DEMO.signOutUri },
  responses: {
    200: {
      description:
        "The sign-out confirmation page (signed in, but not through this client, or the client is another account's), or the page saying the browser is not signed in.",
      ...html,
    },
    302: { description: 'Signed out: redirect to logout_uri.', headers: { Location: 'logout_uri.', ...noStore } },
  },
  errors: { 400: 'An HTML error page: client_id or logout_uri missing, unknown or not registered.' },
  sandbox:
    'Production signs out on any GET of a registered client and URI. On a sandbox that strangers share, any account registers any https sign-out URI, so that would be an open redirect and a sign-out from any site: the sandbox acts at once only for the session of the client, and asks otherwise.',
});

export const logoutConfirmOp = hostOperation('confirmLogout', 'POST /logout', {
  summary: "Sign out (the sign-out page's form)",
  description:
    'Ends the login session of this browser. Then the browser goes to logout_uri when the client is the fixtures\' or of the user\'s own account, and is shown a "Signed out" page otherwise.',
  body: {
    schema: LogoutForm,
    form: true,
    required: false,
    example: { client_id: DEMO.clientId, logout_uri: DEMO.signOutUri, csrf_token: '<from the page>' },
  },
  responses: {
    200: { description: "Signed out: a page that says so (the client is another account's).", ...html },
    303: { description: 'Signed out: to logout_uri.', headers: { Location: 'logout_uri.', ...noStore } },
  },
  errors: {
    400: 'An HTML error page: client_id or logout_uri missing, unknown or not registered.',
    403: 'An HTML error page: the form was not sent from a current sign-out page of this browser (CSRF); nothing ended.',
  },
  sandbox: "Production has no such form: the sandbox's sign-out page posts it.",
});

export const revokeOp = hostOperation('revokeToken', 'POST /oauth2/revoke', {
  summary: "Revoke one of the client's tokens (RFC 7009)",
  description:
    'The client authenticates as at /oauth2/token (HTTP Basic, or client_id and client_secret in the form). An access token ends alone; a refresh token ends its grant: ' +
    'every access and refresh token issued from the same sign-in. An unknown, expired or already revoked token is answered 200 too (RFC 7009 section 2.2). ' +
    'A token issued to another client is refused, and stays as it is.',
  guard: 'client',
  body: {
    schema: RevokeForm,
    form: true,
    required: true,
    example: { token: '<an access or refresh token of the client>', token_type_hint: 'refresh_token' },
  },
  responses: {
    200: {
      description: 'Revoked, or nothing to revoke: an empty JSON object (RFC 7009 clients ignore the body).',
      schema: z.strictObject({}),
      headers: noStore,
      example: {},
    },
  },
  errors: {
    400: 'invalid_request (token missing or repeated, a token_type_hint other than access_token or refresh_token, two authentication methods) or unauthorized_client (the token was issued to another client).',
    401: 'invalid_client: client authentication missing or wrong; with WWW-Authenticate: Basic.',
    429: 'temporarily_unavailable: too many failed token requests from this address; Retry-After says when to try again.',
  },
  sandbox:
    'Production documents no revocation endpoint; the sandbox has RFC 7009 revocation so apps can test signing a user out of them.',
});

export const tokenOp = hostOperation('token', 'POST /oauth2/token', {
  secrets: 'access and refresh tokens',
  summary: 'Exchange a code, or refresh (the token endpoint)',
  description:
    'RFC 6749: grant_type=authorization_code with code and redirect_uri, or grant_type=refresh_token with refresh_token. The client authenticates with ' +
    "Authorization: Basic base64(client_id:client_secret) (what production's example uses) or with client_id and client_secret in the form, never both. " +
    'Refresh tokens rotate: reusing a spent one revokes the grant. As production documents, the token response is also POSTed to the redirect URI (TOKEN_DELIVERY). ' +
    'Errors are RFC 6749 bodies {error, error_description}.',
  guard: 'client',
  body: {
    schema: TokenForm,
    form: true,
    required: true,
    example: { grant_type: 'authorization_code', code: '<the code from the redirect>', redirect_uri: DEMO.redirectUri },
  },
  responses: {
    200: {
      description: 'The tokens.',
      schema: TokenResponseBody,
      headers: { 'Cache-Control': 'no-store', Pragma: 'no-cache' },
      example: { access_token: 'q3x9...', refresh_token: 'Zk1p...', token_type: 'Bearer', expires_in: 3600 },
    },
  },
  errors: {
    400: 'invalid_request, invalid_grant (code or refresh token unknown, used, expired or of another client) or unsupported_grant_type.',
    401: 'invalid_client: client authentication missing or wrong; with WWW-Authenticate: Basic.',
    429: 'temporarily_unavailable: too many failed token requests from this address; Retry-After says when to try again.',
  },
  sandbox: 'The error descriptions say which part failed, to help partners debug their configuration.',
});

const clientOperation = operationsTagged('Sandbox: OAuth clients', 'account');

export const registerClientOp = clientOperation('registerClient', 'POST /sandbox/oauth-clients', {
  secrets: 'the client secret',
  summary: 'Register an OAuth client',
  description:
    "Production's registration form as JSON. Redirect and sign-out URIs must be https (or http on loopback); a native app may use a custom scheme for its redirect URI.",
  body: {
    schema: registrationSchema,
    required: true,
    example: {
      name: 'Pat Developer',
      companyName: 'Example Apps',
      email: 'dev@example.com',
      phone: '+1 555 0100 200',
      applicationName: 'Leak Watch',
      applicationWebsite: 'https://example.com',
      description: 'Alerts for leaks',
      redirectUri: 'http://localhost:3000/callback',
      signOutUri: 'http://localhost:3000/signed-out',
    },
  },
  responses: { 201: { description: 'The client with its credentials.', schema: RegisteredClient } },
  errors: {
    400: 'invalid_parameter: the first problem, and every problem in `problems`.',
    409: 'client_id_taken: the chosen clientId exists; client_id_reserved: the sandbox uses that clientId itself; limit_reached: the account has MAX_OAUTH_CLIENTS clients already (a hosted sandbox: 20 by default).',
  },
  sandbox:
    'A partner may choose clientId and clientSecret, and turn off the POST of the token response to the redirect URI (postTokenToRedirectUri).',
});

export const listClientsOp = clientOperation('listClients', 'GET /sandbox/oauth-clients', {
  secrets: "the clients' secrets",
  summary: "The account's registered OAuth clients",
  responses: {
    200: { description: 'The clients.', schema: z.strictObject({ oauthClients: z.array(RegisteredClient) }) },
  },
});

export const deleteClientOp = clientOperation('deleteClient', 'DELETE /sandbox/oauth-clients/{clientId}', {
  summary: 'Delete a registered OAuth client',
  description:
    'Deletes a client the account registered, with its authorization codes and tokens (calls with them are then refused), so another can be registered in its place.',
  responses: {
    200: {
      description: 'The client deleted, and how many codes and tokens went with it.',
      schema: z.strictObject({ clientId: z.string(), removedTokens: z.int().min(0) }),
      example: { clientId: 'my-client', removedTokens: 2 },
    },
  },
  errors: { 404: 'not_found: the account registered no client of that id.' },
  sandbox:
    'Production has no such call; a sandbox account bounds its clients (MAX_OAUTH_CLIENTS), so it needs a way to make room.',
});

export const ConnectedApp = z
  .strictObject({
    clientId: z.string(),
    applicationName: z.string().meta({ description: 'As the consent page showed it.' }),
    applicationWebsite: z.string().nullable(),
    ownerAccountName: z.string().meta({ description: 'The account that registered the application.' }),
    allowedBy: z.string().meta({ description: 'The e-mail of the user who allowed it.' }),
    allowedAt: isoInstant,
    lastUsedAt: isoInstant.nullable().meta({
      description: 'When its tokens were last used (code exchange, refresh, /v1 calls), to the minute; null: not yet.',
    }),
  })
  .meta({ description: 'An application of another account that a user of this account allowed on the consent page.' });

export const listConnectedAppsOp = clientOperation('listConnectedApps', 'GET /sandbox/connected-apps', {
  summary: 'The applications of other accounts that users of this account allowed',
  description:
    "Each one a user allowed on the consent page, newest first: its tokens reach this account's /v1 API (never the /sandbox controls) until the account revokes it. " +
    'Its user is not asked again for it meanwhile.',
  responses: {
    200: {
      description: 'The connected apps.',
      schema: z.strictObject({ connectedApps: z.array(ConnectedApp) }),
      example: { connectedApps: [] },
    },
  },
  sandbox: 'Production has no consent page, and so nothing to list.',
});

export const revokeConnectedAppOp = clientOperation('revokeConnectedApp', 'DELETE /sandbox/connected-apps/{clientId}', {
  summary: 'Revoke an application of another account',
  description:
    'Ends at once every access and refresh token (and code) the application holds for this account, on every replica, and forgets the consent: the consent page shows again next time.',
  responses: {
    200: {
      description: 'The application revoked, and how many of its tokens ended.',
      schema: z.strictObject({ clientId: z.string(), revokedTokens: z.int().min(0) }),
      example: { clientId: 'their-client', revokedTokens: 2 },
    },
  },
  errors: {
    404: 'not_found: no connected app of that client id (an own client is deleted with DELETE /sandbox/oauth-clients/{clientId}).',
  },
  sandbox: 'Production has no consent page, and so nothing to revoke.',
});

export const authOperations = [
  loginPageOp,
  loginOp,
  consentOp,
  logoutOp,
  logoutConfirmOp,
  tokenOp,
  revokeOp,
  registerClientOp,
  listClientsOp,
  deleteClientOp,
  listConnectedAppsOp,
  revokeConnectedAppOp,
];
