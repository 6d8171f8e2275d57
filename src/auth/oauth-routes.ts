import type { Request, RequestHandler, Response, Router } from 'express';

import { accountNowMs } from '../clock/index.js';
import type { Clock } from '../core/clock.js';
import { type AppError, conflict, OAuthError, oauthError } from '../core/errors.js';
import type { Ids } from '../core/ids.js';
import type { Logger } from '../core/logger.js';
import { clientAddressKey } from '../http/client-address.js';
import { html } from '../http/html.js';
import { operationRouter, safeInput } from '../http/operation.js';
import { authOf, noteJournalSubject, noteRequestFacts } from '../http/request-context.js';
import type { DeepReadonly, UserRecord } from '../store/data.js';
import { IndexConflictError, type IndexKind } from '../store/store.js';
import { RESERVED_CLIENT_IDS } from './authenticate.js';
import { ensureRoomForClient, removeClient } from './client-removal.js';
import { authenticateClient, findClient, findClientAndOwner, type Client, type ClientsDeps } from './clients.js';
import { createCsrf } from './csrf.js';
import {
  AuthorizationQuery,
  ConsentForm,
  consentOp,
  deleteClientOp,
  listClientsOp,
  LoginForm,
  loginOp,
  loginPageOp,
  LogoutQuery,
  logoutOp,
  registerClientOp,
  TokenForm,
  tokenOp,
} from './operations.js';
import { consentPage, messagePage, sendFormPage, signInPage, type FormPage } from './pages.js';
import { clientFromRegistration, parseRegistration, presentRegisteredClient } from './registration.js';
import { endSession, loginSession, type SessionDeps } from './session.js';
import { createSignIn, startUserSession } from './sign-in.js';
import { createTokenThrottle } from './throttle.js';
import { deliverTokenResponse, type TokenDeliveryDeps } from './token-delivery.js';
import { codeProblem, issueCode, issueTokens, pruneGrants, refreshProblem, revokeGrant, tokenTail, type TokenResponse } from './tokens.js';
import { signedInUser } from './users.js';

export interface OAuthDeps extends ClientsDeps, SessionDeps, TokenDeliveryDeps {
  clock: Clock;
  ids: Ids;
  logger: Logger;
  config: SessionDeps['config'] &
    TokenDeliveryDeps['config'] & { readonly authorizationCodeTtlSeconds: number; readonly accessTokenTtlSeconds: number; readonly limits: { readonly oauthClients: number } };
}

/** The authorization request a form carries through its hidden fields. */
interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  state: string | null;
}

/** The parameters of an authorization request, as the schemas read them. */
interface AuthorizationParams {
  client_id?: string | undefined;
  redirect_uri?: string | undefined;
  response_type?: string | undefined;
  state?: string | undefined;
}

type ParsedRequest =
  | { ok: true; client: Client; ownerAccountId: string | null; request: AuthorizationRequest }
  | { ok: false; title: string; message: string };

/**
 * Checks an authorization request (RFC 6749 section 4.1.1). Any problem is shown on an error
 * page, never redirected: an unknown client or unregistered redirect_uri cannot be trusted
 * with a redirect (section 4.1.2.1), and production shows a page for a bad response_type too.
 */
async function parseAuthorizationRequest(deps: ClientsDeps, params: AuthorizationParams): Promise<ParsedRequest> {
  const fail = (title: string, message: string): ParsedRequest => ({ ok: false, title, message });
  const clientId = params.client_id;
  if (clientId === undefined || clientId === '') return fail('Invalid sign-in request', 'client_id is missing: the sign-in link must carry the client_id of a registered application');
  const found = await findClientAndOwner(deps, clientId);
  if (!found) return fail('Unknown application', `No application is registered with client_id ${JSON.stringify(clientId)}`);
  const { client, ownerAccountId } = found;
  const redirectUri = params.redirect_uri;
  if (redirectUri === undefined || redirectUri === '') {
    return fail('Invalid sign-in request', `redirect_uri is missing: give one of the redirect URIs registered for ${client.applicationName}`);
  }
  if (!client.redirectUris.includes(redirectUri)) {
    // SANDBOX: the page lists the registered URIs to help partners fix their configuration.
    return fail(
      'Redirect URI not registered',
      `redirect_uri ${JSON.stringify(redirectUri)} is not registered for ${client.applicationName}; registered: ${client.redirectUris.join(', ')}`,
    );
  }
  const responseType = params.response_type;
  if (responseType !== 'code') {
    return fail(
      'Unsupported response type',
      `response_type must be "code" (the authorization-code flow); ${responseType === undefined ? 'it is missing' : `got ${JSON.stringify(responseType)}`}`,
    );
  }
  return { ok: true, client, ownerAccountId, request: { clientId, redirectUri, state: params.state ?? null } };
}

function loginUrl(request: AuthorizationRequest): string {
  const query = new URLSearchParams({ response_type: 'code', client_id: request.clientId, redirect_uri: request.redirectUri });
  if (request.state !== null) query.set('state', request.state);
  return `/login?${query.toString()}`;
}

const requestFields = (request: AuthorizationRequest): Record<string, string | null> => ({
  response_type: 'code',
  client_id: request.clientId,
  redirect_uri: request.redirectUri,
  state: request.state,
});

/** The CSRF purposes of the authorization host's forms; a consent token names the client and redirect URI it answers for. */
const SIGN_IN_FORM = 'sign-in';
const consentForm = (request: AuthorizationRequest): string => `consent\n${request.clientId}\n${request.redirectUri}`;

/**
 * SANDBOX: production has no consent page. On a sandbox shared by partners who do not know each
 * other, a code for a client that another account registered would hand this user's account to
 * that account's owner (who chose the redirect URI), so the user is asked first. A client of the
 * user's own account, or of the fixtures (the demos' demo-client), needs no consent.
 */
const needsConsent = (parsed: { ownerAccountId: string | null }, user: DeepReadonly<UserRecord>): boolean =>
  parsed.ownerAccountId !== null && parsed.ownerAccountId !== user.accountId;

/**
 * Puts a token request in the journal of the account whose grant it names (the code's or the
 * refresh token's), when that account exists: the readiness report grades code exchanges and
 * refreshes from it. A request naming no known grant belongs to no account.
 */
async function noteTokenRequest(deps: OAuthDeps, res: Response, grantType: string | undefined, grant: { kind: IndexKind; key: string } | null, outcome: { issued: string } | { error: string }): Promise<void> {
  if (grant === null) return;
  const owner = await deps.store.accounts.findByKey(grant.kind, grant.key);
  if (!owner) return;
  noteJournalSubject(res, { accountId: owner.accountId, via: 'client', clock: owner.doc.clock, internal: false });
  noteRequestFacts(res, { ...(grantType === undefined ? {} : { grantType }), ...('issued' in outcome ? { issuedToken: outcome.issued } : { oauthError: outcome.error }) });
}

/** The grant a token request names, to find its account by. */
function grantOf(body: { grant_type?: string | undefined; code?: string | undefined; refresh_token?: string | undefined }): { kind: IndexKind; key: string } | null {
  if (body.grant_type === 'authorization_code' && body.code !== undefined) return { kind: 'authorizationCode', key: body.code };
  if (body.grant_type === 'refresh_token' && body.refresh_token !== undefined) return { kind: 'refreshToken', key: body.refresh_token };
  return null;
}

/**
 * The authorization host: /login (with its consent page), /oauth2/token, /logout.
 * `recordRequest` journals token requests for the account of their grant.
 */
export function oauthRouter(deps: OAuthDeps, recordRequest?: RequestHandler): Router {
  const api = operationRouter('');
  const session = loginSession(deps);
  const signIn = createSignIn(deps);
  const csrf = createCsrf(deps);
  const send = (res: Response, status: number, page: FormPage): void => sendFormPage(deps, res, status, page);
  const sendError = (res: Response, status: number, title: string, message: string, retry?: AuthorizationRequest): void =>
    send(res, status, messagePage({ title, message, note: 'Water-monitoring sandbox authorization host.', ...(retry ? { link: { href: loginUrl(retry), text: 'Open the sign-in page again' } } : {}) }));

  const redirectWithCode = async (res: Response, request: AuthorizationRequest, user: DeepReadonly<UserRecord>): Promise<void> => {
    const code = deps.ids.secret(32);
    await deps.store.accounts.update(user.accountId, (d) => {
      const nowMs = accountNowMs(deps.clock, d.clock);
      pruneGrants(d, nowMs);
      issueCode(d, { code, clientId: request.clientId, redirectUri: request.redirectUri, userId: user.userId, accountId: user.accountId, nowMs, ttlSeconds: deps.config.authorizationCodeTtlSeconds });
    });
    const target = new URL(request.redirectUri);
    target.searchParams.set('code', code);
    if (request.state !== null) target.searchParams.set('state', request.state);
    res.set('Cache-Control', 'no-store').redirect(302, target.toString());
  };

  const showForm = (req: Request, res: Response, status: number, client: Client, request: AuthorizationRequest, extra: { email?: string; error?: string } = {}): void => {
    const csrfToken = csrf.token(req, res, SIGN_IN_FORM);
    send(
      res,
      status,
      signInPage({
        title: `Sign in - ${client.applicationName}`,
        lead: html`to continue to <strong id="application-name">${client.applicationName}</strong>`,
        action: '/login',
        hidden: requestFields(request),
        csrfToken,
        ...extra,
        note: html`Water-monitoring sandbox: sign in with a sandbox user (see the README); nothing here reaches production.`,
      }),
    );
  };

  const showConsent = async (req: Request, res: Response, client: Client, request: AuthorizationRequest, user: DeepReadonly<UserRecord>): Promise<void> => {
    const doc = await deps.store.accounts.get(user.accountId);
    send(
      res,
      200,
      consentPage({
        applicationName: client.applicationName,
        applicationWebsite: client.registration?.applicationWebsite ?? null,
        accountName: doc?.account.name ?? user.accountId,
        userEmail: user.email,
        action: '/login/consent',
        hidden: requestFields(request),
        csrfToken: csrf.token(req, res, consentForm(request)),
      }),
    );
  };

  /** A signed-in user asked for a code: at once, or after consent. */
  const authorize = async (req: Request, res: Response, parsed: ParsedRequest & { ok: true }, user: DeepReadonly<UserRecord>): Promise<void> => {
    if (needsConsent(parsed, user)) return showConsent(req, res, parsed.client, parsed.request, user);
    return redirectWithCode(res, parsed.request, user);
  };

  api.handle(
    loginPageOp,
    async (_input, req, res) => {
      const query = safeInput(AuthorizationQuery, req.query, 'query');
      if (!query.ok) return sendError(res, 400, 'Invalid sign-in request', query.message);
      const parsed = await parseAuthorizationRequest(deps, query.data);
      if (!parsed.ok) return sendError(res, 400, parsed.title, parsed.message);
      // A browser that is already signed in goes straight back, as with a hosted login (or to the consent page).
      const user = await signedInUser(deps.store, req.session);
      if (user) return authorize(req, res, parsed, user);
      showForm(req, res, 200, parsed.client, parsed.request);
    },
    session,
  );

  api.handle(
    loginOp,
    async (_input, req, res) => {
      const form = safeInput(LoginForm, req.body ?? {}, 'body');
      if (!form.ok) return sendError(res, 400, 'Invalid sign-in request', form.message);
      const body = form.data;
      const parsed = await parseAuthorizationRequest(deps, body);
      if (!parsed.ok) return sendError(res, 400, parsed.title, parsed.message);
      const { client, request } = parsed;
      if (!csrf.valid(req, SIGN_IN_FORM, body.csrf_token)) {
        return sendError(res, 403, 'Sign-in form expired', 'This form was not sent from a current sign-in page of this browser (or cookies are blocked); open the sign-in page again.', request);
      }
      const outcome = await signIn(clientAddressKey(req), body.email, body.password);
      if (!outcome.ok) {
        res.set(outcome.headers);
        return showForm(req, res, outcome.status, client, request, { email: outcome.email, error: outcome.error });
      }
      await startUserSession(deps, req, outcome.user);
      await authorize(req, res, parsed, outcome.user);
    },
    session,
  );

  api.handle(
    consentOp,
    async (_input, req, res) => {
      const form = safeInput(ConsentForm, req.body ?? {}, 'body');
      if (!form.ok) return sendError(res, 400, 'Invalid consent', form.message);
      const body = form.data;
      const parsed = await parseAuthorizationRequest(deps, body);
      if (!parsed.ok) return sendError(res, 400, parsed.title, parsed.message);
      const { request } = parsed;
      if (!csrf.valid(req, consentForm(request), body.csrf_token)) {
        return sendError(res, 403, 'Consent form expired', 'This answer was not sent from a current consent page of this browser for this application; open the sign-in page again.', request);
      }
      const user = await signedInUser(deps.store, req.session);
      if (!user) return sendError(res, 403, 'Signed out', 'This browser is no longer signed in; open the sign-in page again.', request);
      if (body.decision === 'deny') {
        // RFC 6749 section 4.1.2.1: the refusal goes to the client, with its state.
        const target = new URL(request.redirectUri);
        target.searchParams.set('error', 'access_denied');
        if (request.state !== null) target.searchParams.set('state', request.state);
        return void res.set('Cache-Control', 'no-store').redirect(302, target.toString());
      }
      if (body.decision !== 'allow') {
        return sendError(res, 400, 'Invalid consent', `decision must be "allow" or "deny"; ${body.decision === undefined ? 'it is missing' : `got ${JSON.stringify(body.decision)}`}`, request);
      }
      await redirectWithCode(res, request, user);
    },
    session,
  );

  api.handle(
    logoutOp,
    async (_input, req, res) => {
      const query = safeInput(LogoutQuery, req.query, 'query');
      if (!query.ok) return sendError(res, 400, 'Invalid sign-out request', query.message);
      const { client_id: id, logout_uri: logoutUri } = query.data;
      if (!id) return sendError(res, 400, 'Invalid sign-out request', 'client_id is missing: the sign-out link must carry the client_id of a registered application');
      const client = await findClient(deps, id);
      if (!client) return sendError(res, 400, 'Unknown application', `No application is registered with client_id ${JSON.stringify(id)}`);
      if (!logoutUri) {
        return sendError(res, 400, 'Invalid sign-out request', `logout_uri is missing: give one of the sign-out URIs registered for ${client.applicationName}`);
      }
      if (!client.signOutUris.includes(logoutUri)) {
        const registered = client.signOutUris.length > 0 ? `registered: ${client.signOutUris.join(', ')}` : 'it has no sign-out URI registered';
        return sendError(res, 400, 'Sign-out URI not registered', `logout_uri ${JSON.stringify(logoutUri)} is not registered for ${client.applicationName}; ${registered}`);
      }
      await endSession(deps, req, res);
      res.set('Cache-Control', 'no-store').redirect(302, logoutUri);
    },
    session,
  );

  /** A token request past the throttle: the client authenticated, the grant checked and spent, the tokens issued. */
  const exchange = async (req: Request, res: Response): Promise<void> => {
    // RFC 6749 section 3.2: parameters must not be repeated.
    const form = safeInput(TokenForm, req.body ?? {}, 'body');
    if (!form.ok) throw oauthError('invalid_request', form.message);
    const body = form.data;
    const grant = grantOf(body);
    let issued: { response: TokenResponse; accountId: string; redirectUri: string };
    try {
      const client = await authenticateClient(deps, req.headers.authorization, { clientId: body.client_id, clientSecret: body.client_secret });
      const grantType = body.grant_type;
      if (grantType === 'authorization_code') issued = await exchangeCode(deps, client, body.code, body.redirect_uri);
      else if (grantType === 'refresh_token') issued = await refresh(deps, client, body.refresh_token);
      else if (grantType === undefined) throw oauthError('invalid_request', 'grant_type is missing: use authorization_code or refresh_token');
      else throw oauthError('unsupported_grant_type', `grant_type ${JSON.stringify(grantType)} is not supported; use authorization_code or refresh_token`);
      await deliverTokenResponse(deps, { accountId: issued.accountId, client, redirectUri: issued.redirectUri, response: issued.response });
    } catch (error) {
      if (error instanceof OAuthError) await noteTokenRequest(deps, res, body.grant_type, grant, { error: error.code });
      throw error;
    }
    // The refresh token sent is spent now: the new access token's grant names the account.
    await noteTokenRequest(deps, res, body.grant_type, { kind: 'accessToken', key: issued.response.access_token }, { issued: tokenTail(issued.response.access_token) });
    res.json(issued.response);
  };

  const tokenThrottle = createTokenThrottle(deps);
  const beforeToken = recordRequest === undefined ? [] : [recordRequest];
  api.handle(
    tokenOp,
    async (_input, req, res) => {
      res.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
      if (!req.is('application/x-www-form-urlencoded')) {
        throw oauthError('invalid_request', 'The token request must have an application/x-www-form-urlencoded body with grant_type and its parameters (RFC 6749 section 4.1.3)');
      }
      // Counted before the client and grant are checked (a guess costs its count at once); taken back unless it was a guess.
      const attempt = await tokenThrottle.begin(clientAddressKey(req));
      let guess = false;
      try {
        await exchange(req, res);
      } catch (error) {
        // Guessing client secrets, codes or refresh tokens is what the limit is for.
        guess = error instanceof OAuthError && (error.code === 'invalid_client' || error.code === 'invalid_grant');
        throw error;
      } finally {
        if (!guess) await attempt.takeBack();
      }
    },
    ...beforeToken,
  );

  return api.done();
}

/** What a token request's grant check decided inside the store change. */
type GrantOutcome = { ok: true; response: TokenResponse; redirectUri: string } | { ok: false; error: OAuthError };

async function exchangeCode(
  deps: OAuthDeps,
  client: Client,
  code: string | undefined,
  redirectUri: string | undefined,
): Promise<{ response: TokenResponse; accountId: string; redirectUri: string }> {
  if (code === undefined) throw oauthError('invalid_request', 'code is required with grant_type=authorization_code');
  if (redirectUri === undefined) throw oauthError('invalid_request', 'redirect_uri is required: the same redirect_uri as in the authorization request');
  const unknown = oauthError('invalid_grant', 'The code is not valid: it is unknown, or so old that it was forgotten');
  // findByKey, not lookup: an account past its lifetime (ACCOUNT_TTL) holds no codes any more.
  const accountId = (await deps.store.accounts.findByKey('authorizationCode', code))?.accountId;
  if (accountId === undefined) throw unknown;
  const tokens = { accessToken: deps.ids.secret(32), refreshToken: deps.ids.secret(32) };
  // Checked and spent in one change of the account: no other request can use the code in between.
  const outcome = await deps.store.accounts.update(accountId, (d): GrantOutcome => {
    const record = d.authorizationCodes.find((c) => c.code === code);
    if (!record) return { ok: false, error: unknown };
    const nowMs = accountNowMs(deps.clock, d.clock);
    if (record.usedAt !== null) {
      // RFC 6749 section 4.1.2: a code is single-use; a second use revokes what the first one issued.
      revokeGrant(d, record.code, new Date(nowMs).toISOString());
      return { ok: false, error: oauthError('invalid_grant', `The code was already used at ${record.usedAt}; codes are single-use, so the tokens issued from it are now revoked`) };
    }
    const problem = codeProblem(record, { clientId: client.clientId, redirectUri, nowMs });
    if (problem) return { ok: false, error: problem };
    if (!d.users.some((u) => u.userId === record.userId)) return { ok: false, error: oauthError('invalid_grant', 'The user who signed in no longer exists') };
    record.usedAt = new Date(nowMs).toISOString();
    pruneGrants(d, nowMs);
    const response = issueTokens(d, { ...tokens, clientId: client.clientId, userId: record.userId, accountId, grantId: code, redirectUri, nowMs, ttlSeconds: deps.config.accessTokenTtlSeconds });
    return { ok: true, response, redirectUri };
  });
  if (!outcome.ok) throw outcome.error;
  return { response: outcome.response, accountId, redirectUri: outcome.redirectUri };
}

/**
 * Refresh with rotation: each refresh returns a new refresh token and spends the one sent.
 * Sending a spent one again means two parties hold it, so the whole grant is revoked (OAuth 2.0
 * Security BCP, RFC 9700 section 4.14.2). The access tokens issued before stay valid until they expire.
 */
async function refresh(deps: OAuthDeps, client: Client, refreshToken: string | undefined): Promise<{ response: TokenResponse; accountId: string; redirectUri: string }> {
  if (refreshToken === undefined) throw oauthError('invalid_request', 'refresh_token is required with grant_type=refresh_token');
  const unknown = oauthError('invalid_grant', 'The refresh_token is not valid: it is unknown, or so old that it was forgotten');
  const accountId = (await deps.store.accounts.findByKey('refreshToken', refreshToken))?.accountId;
  if (accountId === undefined) throw unknown;
  const tokens = { accessToken: deps.ids.secret(32), refreshToken: deps.ids.secret(32) };
  const outcome = await deps.store.accounts.update(accountId, (d): GrantOutcome => {
    const record = d.refreshTokens.find((t) => t.refreshToken === refreshToken);
    if (!record) return { ok: false, error: unknown };
    const nowMs = accountNowMs(deps.clock, d.clock);
    if (record.revokedAt !== null && record.clientId === client.clientId) {
      const { revokedAt } = record;
      revokeGrant(d, record.grantId, new Date(nowMs).toISOString());
      return {
        ok: false,
        error: oauthError(
          'invalid_grant',
          `The refresh_token was already used or revoked at ${revokedAt}; each refresh returns a new refresh_token, and reusing a spent one revokes every token of the grant: sign in again`,
        ),
      };
    }
    const problem = refreshProblem(record, { clientId: client.clientId, nowMs });
    if (problem) return { ok: false, error: problem };
    if (!d.users.some((u) => u.userId === record.userId)) return { ok: false, error: oauthError('invalid_grant', 'The user who signed in no longer exists') };
    record.revokedAt = new Date(nowMs).toISOString();
    const { userId, grantId, redirectUri } = record;
    pruneGrants(d, nowMs);
    const response = issueTokens(d, { ...tokens, clientId: client.clientId, userId, accountId, grantId, redirectUri, nowMs, ttlSeconds: deps.config.accessTokenTtlSeconds });
    return { ok: true, response, redirectUri };
  });
  if (!outcome.ok) throw outcome.error;
  return { response: outcome.response, accountId, redirectUri: outcome.redirectUri };
}

/** /sandbox/oauth-clients: register an OAuth client, list the account's clients. */
export function oauthSandboxRouter(deps: OAuthDeps): Router {
  const api = operationRouter('/sandbox');

  api.handle(registerClientOp, async (_input, req, res) => {
    const { accountId } = authOf(res);
    // parseRegistration runs registerClientOp's body schema and lists every problem.
    const registration = parseRegistration(req.body);
    const chosenId = registration.clientId;
    if (chosenId !== undefined && RESERVED_CLIENT_IDS.has(chosenId)) {
      throw conflict('client_id_reserved', `clientId ${JSON.stringify(chosenId)} is reserved: the sandbox uses it itself; choose another or leave clientId out to get a generated one`);
    }
    const taken = (): AppError =>
      conflict('client_id_taken', `A client with clientId ${JSON.stringify(chosenId)} already exists; choose another or leave clientId out to get a generated one`);
    if (chosenId !== undefined && (await findClient(deps, chosenId))) throw taken();
    const clientId = chosenId ?? deps.ids.secret(18);
    const clientSecret = registration.clientSecret ?? deps.ids.secret(32);
    let record;
    try {
      record = await deps.store.accounts.update(accountId, (d) => {
        ensureRoomForClient(d, deps.config.limits.oauthClients);
        const created = clientFromRegistration(registration, { clientId, clientSecret, accountId, now: new Date(accountNowMs(deps.clock, d.clock)) });
        d.oauthClients.push(created);
        return created;
      });
    } catch (error) {
      // Another account registered the same clientId in the meantime.
      if (error instanceof IndexConflictError) throw taken();
      throw error;
    }
    res.status(201).json(presentRegisteredClient(record));
  });

  api.handle(listClientsOp, (_input, _req, res) => {
    const { doc } = authOf(res);
    res.json({ oauthClients: doc.oauthClients.map((c) => presentRegisteredClient(c)) });
  });

  api.handle(deleteClientOp, async ({ params }, _req, res) => {
    const { accountId } = authOf(res);
    const { clientId } = params;
    const { removedTokens } = await deps.store.accounts.update(accountId, (d) => removeClient(d, clientId));
    res.json({ clientId, removedTokens });
  });

  return api.done();
}
