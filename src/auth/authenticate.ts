import type { RequestHandler } from 'express';

import { accountNowMs } from '../clock/index.js';
import type { Clock } from '../core/clock.js';
import { noteJournalSubject, noteRequestFacts, setAuth, type AuthContext } from '../http/request-context.js';
import { ACCOUNT_AUTHORIZATION, readBearerCredential, refusedCredentials } from '../http/www-authenticate.js';
import type { AccessTokenRecord, AccountDoc, ClockSetting, DeepReadonly } from '../store/data.js';
import { LAST_REQUEST_RESOLUTION_MS, type Store } from '../store/store.js';
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
 * Resolves an API key or an access token to its account, with production's split:
 * 401 when the header is missing or has no key; 403 when the key or token is invalid or expired.
 */
export async function resolveCredential(
  deps: AuthenticateDeps,
  credential: string,
  onRefused?: RefusedToken,
): Promise<AuthContext> {
  const { accounts } = deps.store;
  const keyOwner = await accounts.findByKey('apiKey', credential);
  if (keyOwner?.doc.apiKeys.some((k) => k.apiKey === credential))
    return { accountId: keyOwner.accountId, via: 'api_key', userId: null, internal: false, doc: keyOwner.doc };
  const tokenOwner = await accounts.findByKey('accessToken', credential);
  const doc = tokenOwner?.doc;
  const token = doc?.accessTokens.find((t) => t.accessToken === credential);
  if (!doc || !token) throw invalidCredential();
  if (token.revokedAt !== null) {
    onRefused?.(doc, token, 'token_revoked');
    throw refusedCredentials(
      'token_revoked',
      `The access token was revoked at ${token.revokedAt}; get a new one through /oauth2/token`,
    );
  }
  if (Date.parse(token.expiresAt) <= tokenNowMs(token, tokenClocks(deps.clock, doc.clock))) {
    onRefused?.(doc, token, 'token_expired');
    throw refusedCredentials(
      'token_expired',
      `The access token expired at ${token.expiresAt}; refresh it through /oauth2/token`,
    );
  }
  return {
    accountId: doc.account.accountId,
    via: 'access_token',
    userId: token.userId,
    internal: token.internal === true,
    doc,
  };
}

/**
 * Authenticates /v1 and /sandbox requests, and notes the request time of generated accounts:
 * their ACCOUNT_TTL counts from it, to the second (an account past it is not found, see AccountStore).
 */
export function requireAccount(deps: AuthenticateDeps): RequestHandler {
  const touched = new Map<string, number>();
  const touch = (auth: AuthContext): void => {
    if (auth.doc.account.origin !== 'generated') return;
    const nowMs = deps.clock.now().getTime();
    const last = touched.get(auth.accountId);
    if (last !== undefined && nowMs - last < LAST_REQUEST_RESOLUTION_MS && nowMs >= last) return;
    if (touched.size >= MAX_TOUCH_MEMORY) touched.clear();
    touched.set(auth.accountId, nowMs);
    // Not awaited on the request's path; a failed touch only delays the account's idle expiry.
    deps.store.accounts.touch(auth.accountId, nowMs).catch(() => touched.delete(auth.accountId));
  };
  return async (req, res, next) => {
    const credential = readBearerCredential(req.headers.authorization, ACCOUNT_AUTHORIZATION);
    // A refused token of the account still goes in its journal: a client that keeps sending an expired token is what the readiness report must see.
    const auth = await resolveCredential(deps, credential, (doc, token, refusal) => {
      noteJournalSubject(res, {
        accountId: doc.account.accountId,
        via: 'access_token',
        clock: doc.clock,
        internal: token.internal === true,
      });
      noteRequestFacts(res, { token: tokenTail(credential), refusal });
    });
    touch(auth);
    setAuth(res, auth);
    if (auth.via === 'access_token' && !auth.internal) noteRequestFacts(res, { token: tokenTail(credential) });
    next();
  };
}
