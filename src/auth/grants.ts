import { accountNowMs } from '../clock/index.js';
import type { Clock } from '../core/clock.js';
import { type OAuthError, oauthError } from '../core/errors.js';
import type { Ids } from '../core/ids.js';
import type { AccountDoc, DeepReadonly, UserRecord } from '../store/data.js';
import type { IndexKind, Store } from '../store/store.js';
import type { AuthorizationRequest } from './authorization-request.js';
import type { Client } from './clients.js';
import { codeProblem, issueCode, issueTokens, pruneGrants, refreshProblem, revokeGrant, type TokenResponse } from './tokens.js';

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

/** The grant a stored code or refresh token continues, and how to spend that code or token. */
type Checked = { ok: true; userId: string; grantId: string; redirectUri: string; spend: (atIso: string) => void } | { ok: false; error: OAuthError };

/** How one kind of grant is found, checked and spent inside the store change. */
interface GrantKind {
  /** The index its key is found through. */
  index: IndexKind;
  key: string;
  /** The answer when the key is unknown (or forgotten, or its account is past its lifetime). */
  unknown: OAuthError;
  check(doc: AccountDoc, client: Client, nowMs: number): Checked;
}

/** A code is single-use: a second use revokes what the first one issued (RFC 6749 section 4.1.2). */
function codeGrant(code: string | undefined, redirectUri: string | undefined): GrantKind {
  if (code === undefined) throw oauthError('invalid_request', 'code is required with grant_type=authorization_code');
  if (redirectUri === undefined) throw oauthError('invalid_request', 'redirect_uri is required: the same redirect_uri as in the authorization request');
  const unknown = oauthError('invalid_grant', 'The code is not valid: it is unknown, or so old that it was forgotten');
  return {
    index: 'authorizationCode',
    key: code,
    unknown,
    check(d, client, nowMs) {
      const record = d.authorizationCodes.find((c) => c.code === code);
      if (!record) return { ok: false, error: unknown };
      if (record.usedAt !== null) {
        revokeGrant(d, record.code, new Date(nowMs).toISOString());
        return { ok: false, error: oauthError('invalid_grant', `The code was already used at ${record.usedAt}; codes are single-use, so the tokens issued from it are now revoked`) };
      }
      const problem = codeProblem(record, { clientId: client.clientId, redirectUri, nowMs });
      if (problem) return { ok: false, error: problem };
      return { ok: true, userId: record.userId, grantId: code, redirectUri, spend: (at) => {
          record.usedAt = at;
        } };
    },
  };
}

/**
 * Refresh with rotation: each refresh returns a new refresh token and spends the one sent.
 * Sending a spent one again means two parties hold it, so the whole grant is revoked (OAuth 2.0
 * Security BCP, RFC 9700 section 4.14.2). The access tokens issued before stay valid until they expire.
 */
function refreshGrant(refreshToken: string | undefined): GrantKind {
  if (refreshToken === undefined) throw oauthError('invalid_request', 'refresh_token is required with grant_type=refresh_token');
  const unknown = oauthError('invalid_grant', 'The refresh_token is not valid: it is unknown, or so old that it was forgotten');
  return {
    index: 'refreshToken',
    key: refreshToken,
    unknown,
    check(d, client, nowMs) {
      const record = d.refreshTokens.find((t) => t.refreshToken === refreshToken);
      if (!record) return { ok: false, error: unknown };
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
      const { userId, grantId, redirectUri } = record;
      return { ok: true, userId, grantId, redirectUri, spend: (at) => {
          record.revokedAt = at;
        } };
    },
  };
}

/**
 * Redeems a code or a refresh token of `client` for a new access token and refresh token of the
 * same grant. The grant is checked and spent in one change of its account, so no other request
 * can use it in between; an OAuthError (invalid_request or invalid_grant) says why not.
 */
export async function redeem(deps: GrantsDeps, client: Client, redemption: Redemption): Promise<Redeemed> {
  const grant = redemption.grantType === 'authorization_code' ? codeGrant(redemption.code, redemption.redirectUri) : refreshGrant(redemption.refreshToken);
  // findByKey, not lookup: an account past its lifetime (ACCOUNT_TTL) holds no grants any more.
  const accountId = (await deps.store.accounts.findByKey(grant.index, grant.key))?.accountId;
  if (accountId === undefined) throw grant.unknown;
  const tokens = { accessToken: deps.ids.secret(32), refreshToken: deps.ids.secret(32) };
  const outcome = await deps.store.accounts.update(accountId, (d): { ok: true; response: TokenResponse; redirectUri: string } | { ok: false; error: OAuthError } => {
    const nowMs = accountNowMs(deps.clock, d.clock);
    const checked = grant.check(d, client, nowMs);
    if (!checked.ok) return checked;
    if (!d.users.some((u) => u.userId === checked.userId)) return { ok: false, error: oauthError('invalid_grant', 'The user who signed in no longer exists') };
    checked.spend(new Date(nowMs).toISOString());
    pruneGrants(d, nowMs);
    const { userId, grantId, redirectUri } = checked;
    const response = issueTokens(d, { ...tokens, clientId: client.clientId, userId, accountId, grantId, redirectUri, nowMs, ttlSeconds: deps.config.accessTokenTtlSeconds });
    return { ok: true, response, redirectUri };
  });
  if (!outcome.ok) throw outcome.error;
  return { response: outcome.response, accountId, redirectUri: outcome.redirectUri };
}

/** Issues an authorization code of `request` to a signed-in user; returns it. */
export async function grantCode(deps: GrantsDeps, request: AuthorizationRequest, user: DeepReadonly<UserRecord>): Promise<string> {
  const code = deps.ids.secret(32);
  await deps.store.accounts.update(user.accountId, (d) => {
    const nowMs = accountNowMs(deps.clock, d.clock);
    pruneGrants(d, nowMs);
    issueCode(d, { code, clientId: request.clientId, redirectUri: request.redirectUri, userId: user.userId, accountId: user.accountId, nowMs, ttlSeconds: deps.config.authorizationCodeTtlSeconds });
  });
  return code;
}
