import { accountNowMs } from '../clock/index.js';
import type { Clock } from '../core/clock.js';
import { type OAuthError, oauthError } from '../core/errors.js';
import type { Ids } from '../core/ids.js';
import type {
  AccountDoc,
  AuthorizationCodeRecord,
  DeepReadonly,
  RefreshTokenRecord,
  UserRecord,
} from '../store/data.js';
import type { IndexKind, Store } from '../store/store.js';
import type { AuthorizationRequest } from './authorization-request.js';
import type { Client } from './clients.js';
import { connectedApp, foreignApp, noteAppUse } from './connected-apps.js';
import {
  codeProblem,
  issueCode,
  issueTokens,
  pruneGrants,
  refreshProblem,
  revokeGrant,
  type TokenResponse,
} from './tokens.js';

/**
 * The grants of the authorization host as a service: a code issued to a signed-in user, and
 * the one way a token request redeems a grant (a code or a refresh token) for new tokens.
 */

export interface GrantsDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  config: { readonly authorizationCodeTtlSeconds: number; readonly accessTokenTtlSeconds: number };
}

/** What a token request redeems, as its form names it. */
export type Redemption =
  | { grantType: 'authorization_code'; code: string | undefined; redirectUri: string | undefined }
  | { grantType: 'refresh_token'; refreshToken: string | undefined };

/** The tokens a redeemed grant issued, with the account and the redirect URI of the grant. */
export interface Redeemed {
  response: TokenResponse;
  accountId: string;
  redirectUri: string;
}

/** How one kind of grant (a code, a refresh token) is found, checked and spent inside the store change. */
interface GrantKind<R> {
  /** The index its key is found through. */
  index: IndexKind;
  key: string;
  /** The answer when the key is unknown (or forgotten, or its account is past its lifetime). */
  unknown: OAuthError;
  find(doc: AccountDoc): R | undefined;
  /** When it was spent, if this client spent it already: sending it again revokes the grant. */
  spentAt(record: R, client: Client): string | null;
  replayed(record: R, spentAt: string): OAuthError;
  /** Why this client cannot redeem it now (another client's, expired, another redirect URI), or null. */
  problem(record: R, client: Client, nowMs: number): OAuthError | null;
  /** The grant it continues, and whether it was issued as consent-kind. */
  grant(record: R): { userId: string; grantId: string; redirectUri: string; consented: boolean };
  spend(record: R, atIso: string): void;
}

/** The grant of an application of another account that the account no longer keeps connected (revoked, or registered again since). */
const appNotConnected = (client: Client): OAuthError =>
  oauthError(
    'invalid_grant',
    `The account no longer allows ${JSON.stringify(client.applicationName)} (client_id ${JSON.stringify(client.clientId)}): it revoked the application in its connected apps, or the client was registered again since it was allowed. The user must sign in and allow it again`,
  );

/** A code is single-use: a second use revokes what the first one issued (RFC 6749 section 4.1.2). */
function codeGrant(code: string | undefined, redirectUri: string | undefined): GrantKind<AuthorizationCodeRecord> {
  if (code === undefined) throw oauthError('invalid_request', 'code is required with grant_type=authorization_code');
  if (redirectUri === undefined)
    throw oauthError(
      'invalid_request',
      'redirect_uri is required: the same redirect_uri as in the authorization request',
    );
  return {
    index: 'authorizationCode',
    key: code,
    unknown: oauthError('invalid_grant', 'The code is not valid: it is unknown, or so old that it was forgotten'),
    find: (d) => d.authorizationCodes.find((c) => c.code === code),
    spentAt: (record) => record.usedAt,
    replayed: (_record, at) =>
      oauthError(
        'invalid_grant',
        `The code was already used at ${at}; codes are single-use, so the tokens issued from it are now revoked`,
      ),
    problem: (record, client, nowMs) => codeProblem(record, { clientId: client.clientId, redirectUri, nowMs }),
    grant: (record) => ({
      userId: record.userId,
      grantId: record.code,
      redirectUri,
      consented: record.consented === true,
    }),
    spend: (record, at) => {
      record.usedAt = at;
    },
  };
}

/**
 * Refresh with rotation: each refresh returns a new refresh token and spends the one sent.
 * Sending a spent one again means two parties hold it, so the whole grant is revoked (OAuth 2.0
 * Security BCP, RFC 9700 section 4.14.2). The access tokens issued before stay valid until they
 * expire. Another client sending it never held it: it is refused without revoking anything.
 */
function refreshGrant(refreshToken: string | undefined): GrantKind<RefreshTokenRecord> {
  if (refreshToken === undefined)
    throw oauthError('invalid_request', 'refresh_token is required with grant_type=refresh_token');
  return {
    index: 'refreshToken',
    key: refreshToken,
    unknown: oauthError(
      'invalid_grant',
      'The refresh_token is not valid: it is unknown, or so old that it was forgotten',
    ),
    find: (d) => d.refreshTokens.find((t) => t.refreshToken === refreshToken),
    spentAt: (record, client) => (record.clientId === client.clientId ? record.revokedAt : null),
    replayed: (record, at) =>
      oauthError(
        'invalid_grant',
        record.revokedBy === 'account'
          ? `The refresh_token was revoked at ${at} by the account, which revoked this application (connected apps): the user must sign in and allow it again`
          : record.revokedBy === 'client'
            ? `The refresh_token was revoked at ${at} by its client (POST /oauth2/revoke): sign in again`
            : `The refresh_token was already used or revoked at ${at}; each refresh returns a new refresh_token, and reusing a spent one revokes every token of the grant: sign in again`,
      ),
    problem: (record, client, nowMs) => refreshProblem(record, { clientId: client.clientId, nowMs }),
    grant: ({ userId, grantId, redirectUri, consented }) => ({
      userId,
      grantId,
      redirectUri,
      consented: consented === true,
    }),
    spend: (record, at) => {
      record.revokedAt = at;
    },
  };
}

/**
 * Redeems a code or a refresh token of `client` for a new access token and refresh token of the
 * same grant. The grant is checked and spent in one change of its account, so no other request
 * can use it in between; an OAuthError (invalid_request or invalid_grant) says why not.
 */
export async function redeem(deps: GrantsDeps, client: Client, redemption: Redemption): Promise<Redeemed> {
  if (redemption.grantType === 'authorization_code')
    return await redeemGrant(deps, client, codeGrant(redemption.code, redemption.redirectUri));
  return await redeemGrant(deps, client, refreshGrant(redemption.refreshToken));
}

async function redeemGrant<R>(deps: GrantsDeps, client: Client, kind: GrantKind<R>): Promise<Redeemed> {
  // findByKey, not lookup: an account past its lifetime (ACCOUNT_TTL) holds no grants any more.
  const accountId = (await deps.store.accounts.findByKey(kind.index, kind.key))?.accountId;
  if (accountId === undefined) throw kind.unknown;
  const tokens = { accessToken: deps.ids.secret(32), refreshToken: deps.ids.secret(32) };
  const outcome = await deps.store.accounts.update(
    accountId,
    (d): { ok: true; response: TokenResponse; redirectUri: string } | { ok: false; error: OAuthError } => {
      const record = kind.find(d);
      if (!record) return { ok: false, error: kind.unknown };
      const nowMs = accountNowMs(deps.clock, d.clock);
      const { userId, grantId, redirectUri, consented } = kind.grant(record);
      const spentAt = kind.spentAt(record, client);
      if (spentAt !== null) {
        revokeGrant(d, grantId, new Date(nowMs).toISOString());
        return { ok: false, error: kind.replayed(record, spentAt) };
      }
      const problem = kind.problem(record, client, nowMs);
      if (problem) return { ok: false, error: problem };
      if (!d.users.some((u) => u.userId === userId))
        return { ok: false, error: oauthError('invalid_grant', 'The user who signed in no longer exists') };
      // A grant of another account's client lives as long as the account keeps that app connected;
      // one issued before the mark existed is known by its client's owner, when it is issued again.
      const app = foreignApp(client, accountId);
      if (consented || app) {
        if (!app || !connectedApp(d, app, userId)) return { ok: false, error: appNotConnected(client) };
        noteAppUse(d, app.clientId, userId, deps.clock.now().toISOString());
      }
      kind.spend(record, new Date(nowMs).toISOString());
      pruneGrants(d, nowMs);
      const response = issueTokens(d, {
        ...tokens,
        clientId: client.clientId,
        userId,
        accountId,
        grantId,
        redirectUri,
        nowMs,
        ttlSeconds: deps.config.accessTokenTtlSeconds,
        consented: consented || app !== null,
      });
      return { ok: true, response, redirectUri };
    },
  );
  if (!outcome.ok) throw outcome.error;
  return { response: outcome.response, accountId, redirectUri: outcome.redirectUri };
}

/**
 * Issues an authorization code of `request` to a signed-in user; returns it. `consented`: the
 * client is another account's, allowed by the user (the code and its tokens are marked so).
 * `alongside` runs in the same change of the user's account, before the code is issued: what the
 * consent page's answer stores (see consent-routes.ts); when it throws, nothing is stored.
 */
export async function grantCode(
  deps: GrantsDeps,
  request: AuthorizationRequest,
  user: DeepReadonly<UserRecord>,
  standing: { consented: boolean; alongside?: (doc: AccountDoc) => void },
): Promise<string> {
  const code = deps.ids.secret(32);
  await deps.store.accounts.update(user.accountId, (d) => {
    standing.alongside?.(d);
    const nowMs = accountNowMs(deps.clock, d.clock);
    pruneGrants(d, nowMs);
    issueCode(d, {
      code,
      clientId: request.clientId,
      redirectUri: request.redirectUri,
      userId: user.userId,
      accountId: user.accountId,
      nowMs,
      ttlSeconds: deps.config.authorizationCodeTtlSeconds,
      consented: standing.consented,
    });
  });
  return code;
}

/** What POST /oauth2/revoke came to (RFC 7009): revoked, or nothing to revoke (unknown), or a token of another client. */
export type RevokeOutcome = 'revoked' | 'unknown' | 'another_client';

/**
 * RFC 7009: revokes a token of `client`. An access token ends alone; a refresh token ends its
 * whole grant, the access tokens issued from it included (section 2.1). `hint` says which index
 * to look in first; the other is searched too. A token of another client is left as it is.
 */
export async function revokeClientToken(
  deps: GrantsDeps,
  client: Client,
  token: string,
  hint: 'access_token' | 'refresh_token' | undefined,
): Promise<RevokeOutcome> {
  const kinds: IndexKind[] =
    hint === 'refresh_token' ? ['refreshToken', 'accessToken'] : ['accessToken', 'refreshToken'];
  for (const kind of kinds) {
    const accountId = (await deps.store.accounts.findByKey(kind, token))?.accountId;
    if (accountId === undefined) continue;
    return deps.store.accounts.update(accountId, (d): RevokeOutcome => {
      const record =
        kind === 'accessToken'
          ? d.accessTokens.find((t) => t.accessToken === token)
          : d.refreshTokens.find((t) => t.refreshToken === token);
      if (!record) return 'unknown';
      if (record.clientId !== client.clientId) return 'another_client';
      const nowIso = new Date(accountNowMs(deps.clock, d.clock)).toISOString();
      if (kind === 'refreshToken') revokeGrant(d, record.grantId, nowIso, 'client');
      else if (record.revokedAt === null) {
        record.revokedAt = nowIso;
        record.revokedBy = 'client';
      }
      return 'revoked';
    });
  }
  return 'unknown';
}
