import type { RequestHandler } from 'express';

import { accountNowMs } from '../clock/index.js';
import type { Clock } from '../core/clock.js';
import { onceEvery } from '../core/once-every.js';
import { noteJournalSubject, noteRequestFacts, setAuth, type AuthContext } from '../http/request-context.js';
import {
  ACCOUNT_AUTHORIZATION,
  insufficientScope,
  readBearerCredential,
  refusedCredentials,
} from '../http/www-authenticate.js';
import type { AccessTokenRecord, AccountDoc, ClockSetting, DeepReadonly } from '../store/data.js';
import { LAST_REQUEST_RESOLUTION_MS, type Store } from '../store/store.js';
import { noteAppUse } from './connected-apps.js';
import { tokenNowMs, tokenTail, type TokenClocks } from './tokens.js';

/**
 * The clientId of the access tokens the dashboard page gets; no OAuth client of that id exists,
 * and none may be registered (RESERVED_CLIENT_IDS). Whether a token is the sandbox's own is its
 * `internal` mark, never this id.
 */
export const DASHBOARD_CLIENT_ID = 'sandbox-dashboard';

/** Client ids the sandbox uses itself: registering one is refused. */
export const RESERVED_CLIENT_IDS: ReadonlySet<string> = new Set([DASHBOARD_CLIENT_ID]);

const MAX_TOUCH_MEMORY = 10_000;

/** An allowed app's last use is recorded at most this often per app, user and process (a write each time). */
export const APP_USE_RESOLUTION_MS = 60_000;

export interface AuthenticateDeps {
  store: Store;
  clock: Clock;
}

const invalidCredential = (): Error =>
  refusedCredentials(
    'invalid_credentials',
    'The API key or access token in the Authorization header is not valid for this sandbox',
  );

/** The now of the account's clock and of the process clock, which access tokens are read against (tokenNowMs). */
export const tokenClocks = (base: Clock, clock: DeepReadonly<ClockSetting>): TokenClocks => ({
  accountMs: accountNowMs(base, clock),
  processMs: base.now().getTime(),
});

/** Told of an access token of the account that was refused: revoked or expired. */
export type RefusedToken = (
  doc: DeepReadonly<AccountDoc>,
  token: DeepReadonly<AccessTokenRecord>,
  refusal: 'token_expired' | 'token_revoked',
) => void;

/**
 * What a route lets a credential reach. `api`: production's /v1 API, which an application of
 * another account that a user allowed may call. `controls`: the account owner's tools (every
 * /sandbox control, the relay, the MCP server), which such an application's token may not use.
 */
export type Reach = 'api' | 'controls';

/** 403 for an allowed application's token on the controls: it says why, and what may call them. */
const ownerOnly = (clientId: string): Error =>
  insufficientScope(
    `This access token was issued to an application of another account (client_id ${JSON.stringify(clientId)}), which a user of this account allowed: it reaches the /v1 API only. The /sandbox controls are the account owner's: call them with the account's API key or a token of one of its own OAuth clients`,
  );

/**
 * Resolves an API key or an access token to its account, with production's split:
 * 401 when the header is missing or has no key; 403 when the key or token is invalid or expired,
 * or (403 insufficient_scope) when it is an allowed application's and `reach` is the controls.
 */
export async function resolveCredential(
  deps: AuthenticateDeps,
  credential: string,
  reach: Reach = 'controls',
  onRefused?: RefusedToken,
): Promise<AuthContext> {
  const { accounts } = deps.store;
  const keyOwner = await accounts.findByKey('apiKey', credential);
  if (keyOwner?.doc.apiKeys.some((k) => k.apiKey === credential))
    return {
      accountId: keyOwner.accountId,
      via: 'api_key',
      userId: null,
      internal: false,
      allowedApp: null,
      doc: keyOwner.doc,
    };
  const tokenOwner = await accounts.findByKey('accessToken', credential);
  const doc = tokenOwner?.doc;
  const token = doc?.accessTokens.find((t) => t.accessToken === credential);
  if (!doc || !token) throw invalidCredential();
  if (token.revokedAt !== null) {
    onRefused?.(doc, token, 'token_revoked');
    const by =
      token.revokedBy === 'account'
        ? ' by the account, which revoked this application (connected apps); the user must sign in and allow it again'
        : token.revokedBy === 'client'
          ? ' by its client (POST /oauth2/revoke)'
          : '';
    throw refusedCredentials(
      'token_revoked',
      `The access token was revoked at ${token.revokedAt}${by}; get a new one through /oauth2/token`,
    );
  }
  if (Date.parse(token.expiresAt) <= tokenNowMs(token, tokenClocks(deps.clock, doc.clock))) {
    onRefused?.(doc, token, 'token_expired');
    throw refusedCredentials(
      'token_expired',
      `The access token expired at ${token.expiresAt}; refresh it through /oauth2/token`,
    );
  }
  if (token.consented === true && reach === 'controls') throw ownerOnly(token.clientId);
  return {
    accountId: doc.account.accountId,
    via: 'access_token',
    userId: token.userId,
    internal: token.internal === true,
    allowedApp: token.consented === true ? token.clientId : null,
    doc,
  };
}

/**
 * Authenticates the requests of one reach (the controls unless told `api`: see resolveCredential,
 * the one place that decides who may use the controls), and notes the request time of generated
 * accounts: their ACCOUNT_TTL counts from it, to the second (an account past it is not found, see
 * AccountStore), and the last use of an allowed application.
 */
export function requireAccount(deps: AuthenticateDeps, reach: Reach = 'controls'): RequestHandler {
  const touches = onceEvery(LAST_REQUEST_RESOLUTION_MS, MAX_TOUCH_MEMORY);
  const touch = (auth: AuthContext): void => {
    if (auth.doc.account.origin !== 'generated') return;
    const nowMs = deps.clock.now().getTime();
    if (!touches.due(auth.accountId, nowMs)) return;
    // Not awaited on the request's path; a failed touch only delays the account's idle expiry.
    deps.store.accounts.touch(auth.accountId, nowMs).catch(() => touches.forget(auth.accountId));
  };
  const appUses = onceEvery(APP_USE_RESOLUTION_MS, MAX_TOUCH_MEMORY);
  const noteUse = (auth: AuthContext, clientId: string): void => {
    const now = deps.clock.now();
    const key = `${auth.accountId}\n${auth.userId ?? ''}\n${clientId}`;
    if (auth.userId === null || !appUses.due(key, now.getTime())) return;
    const { userId } = auth;
    // Bookkeeping a crash may lose: written lazily, and not awaited on the request's path.
    deps.store.accounts
      .update(auth.accountId, (d, tx) => {
        noteAppUse(d, clientId, userId, now.toISOString());
        tx.writeLazily();
      })
      .catch(() => appUses.forget(key));
  };
  return async (req, res, next) => {
    const credential = readBearerCredential(req.headers.authorization, ACCOUNT_AUTHORIZATION);
    // A refused token of the account still goes in its journal: a client that keeps sending an expired token is what the readiness report must see.
    const auth = await resolveCredential(deps, credential, reach, (doc, token, refusal) => {
      noteJournalSubject(res, {
        accountId: doc.account.accountId,
        via: 'access_token',
        clock: doc.clock,
        internal: token.internal === true,
      });
      noteRequestFacts(res, { token: tokenTail(credential), refusal });
    });
    if (auth.allowedApp !== null) noteUse(auth, auth.allowedApp);
    touch(auth);
    setAuth(res, auth);
    if (auth.via === 'access_token' && !auth.internal) noteRequestFacts(res, { token: tokenTail(credential) });
    next();
  };
}
