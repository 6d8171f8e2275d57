import { oauthError } from '../core/errors.js';
import type {
  AccessTokenRecord,
  AccountDoc,
  AuthorizationCodeRecord,
  DeepReadonly,
  RefreshTokenRecord,
} from '../store/data.js';

/**
 * Codes, access tokens and refresh tokens as operations over an account's document. Times are
 * ms on the account's clock. Nothing here knows HTTP.
 *
 * A grant is everything issued from one authorization code: its access tokens and the chain
 * of refresh tokens. Every token carries the grant's id (the code it came from), so a
 * replayed code or a reused refresh token revokes the whole grant.
 */

/** How long spent, revoked and expired records are kept: replays within it still revoke the grant and get a precise error. */
export const RETENTION_MS = 24 * 60 * 60 * 1000;
// SANDBOX: production does not document a refresh-token lifetime; ours is 30 days from issue, and each refresh issues a new one.
export const REFRESH_TOKEN_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;

/** RFC 6749 section 5.1, exactly these keys. */
export interface TokenResponse {
  access_token: string;
  refresh_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** How many of a token's last characters tell the account's tokens apart in its journal, without keeping the token there. */
const TOKEN_TAIL_CHARS = 8;

export const tokenTail = (token: string): string => token.slice(-TOKEN_TAIL_CHARS);

/**
 * Dead codes and tokens (used, expired or revoked) kept per kind within RETENTION_MS, the newest:
 * on a clock that stands still nothing ever passes the retention, and every refresh leaves one.
 */
export const DEAD_KEPT = 100;

/** The now of each clock a token's times can be on, in ms. */
export interface TokenClocks {
  /** The account's virtual clock: a partner's tokens, codes and refresh tokens. */
  readonly accountMs: number;
  /** The process clock (real time): the sandbox's own tokens. */
  readonly processMs: number;
}

/**
 * The now an access token's expiry and revocation are read against: the account clock for a
 * partner's token (moving the clock a day expires it), the process clock for the sandbox's own.
 * SANDBOX: the dashboard's page is not an integration under test; its token keeps working
 * whatever the account clock does (forward, back, a scenario), and still expires and is revoked.
 */
export const tokenNowMs = (token: DeepReadonly<Pick<AccessTokenRecord, 'internal'>>, clocks: TokenClocks): number =>
  token.internal === true ? clocks.processMs : clocks.accountMs;

const parseTime = (at: string | null): number | null => (at === null ? null : Date.parse(at));

/**
 * The account's access tokens that `which` picks, without those dead (expired or revoked) for
 * longer than RETENTION_MS at `nowMs`, and the oldest dead beyond DEAD_KEPT; the others as they are.
 */
function pruneAccessTokens(
  doc: AccountDoc,
  nowMs: number,
  which: (token: DeepReadonly<AccessTokenRecord>) => boolean,
): void {
  const deadSince = (ms: number | null): boolean => ms !== null && ms + RETENTION_MS <= nowMs;
  doc.accessTokens = newestDead(
    doc.accessTokens.filter(
      (t) => !which(t) || (!deadSince(Date.parse(t.expiresAt)) && !deadSince(parseTime(t.revokedAt))),
    ),
    (t) => which(t) && (t.revokedAt !== null || Date.parse(t.expiresAt) <= nowMs),
  );
}

const isInternal = (token: DeepReadonly<AccessTokenRecord>): boolean => token.internal === true;

/**
 * Drops what has been dead for longer than RETENTION_MS, and the oldest dead ones beyond
 * DEAD_KEPT of each kind, so the document does not grow without bound. Live ones count toward
 * the account's ACCOUNT_STORAGE_LIMIT. `nowMs` is the account clock's: the sandbox's own access
 * tokens, whose times are on the process clock, are pruned by pruneInternalTokens.
 */
export function pruneGrants(doc: AccountDoc, nowMs: number): void {
  const deadSince = (ms: number | null): boolean => ms !== null && ms + RETENTION_MS <= nowMs;
  const dead = (ms: number | null): boolean => ms !== null && ms <= nowMs;
  doc.authorizationCodes = newestDead(
    doc.authorizationCodes.filter((c) => !deadSince(Date.parse(c.expiresAt))),
    (c) => c.usedAt !== null || dead(Date.parse(c.expiresAt)),
  );
  pruneAccessTokens(doc, nowMs, (t) => !isInternal(t));
  doc.refreshTokens = newestDead(
    doc.refreshTokens.filter((t) => !deadSince(refreshExpiresAtMs(t)) && !deadSince(parseTime(t.revokedAt))),
    (t) => t.revokedAt !== null || dead(refreshExpiresAtMs(t)),
  );
}

/** What pruneGrants does, for the sandbox's own access tokens, at `processMs` on the process clock. */
export function pruneInternalTokens(doc: AccountDoc, processMs: number): void {
  pruneAccessTokens(doc, processMs, isInternal);
}

/** `records` (in the order they were issued) without the oldest dead ones beyond DEAD_KEPT. */
function newestDead<T>(records: T[], isDead: (record: T) => boolean): T[] {
  let drop = records.filter(isDead).length - DEAD_KEPT;
  if (drop <= 0) return records;
  return records.filter((record) => {
    if (drop === 0 || !isDead(record)) return true;
    drop--;
    return false;
  });
}

export function refreshExpiresAtMs(token: DeepReadonly<RefreshTokenRecord>): number {
  return Date.parse(token.createdAt) + REFRESH_TOKEN_LIFETIME_MS;
}

export function issueCode(
  data: AccountDoc,
  input: {
    code: string;
    clientId: string;
    redirectUri: string;
    userId: string;
    accountId: string;
    nowMs: number;
    ttlSeconds: number;
    /** Issued to a client of another account that the user allowed (see AuthorizationCodeRecord.consented). */
    consented: boolean;
  },
): AuthorizationCodeRecord {
  const record: AuthorizationCodeRecord = {
    code: input.code,
    clientId: input.clientId,
    redirectUri: input.redirectUri,
    userId: input.userId,
    accountId: input.accountId,
    expiresAt: iso(input.nowMs + input.ttlSeconds * 1000),
    usedAt: null,
    ...(input.consented ? { consented: true as const } : {}),
  };
  data.authorizationCodes.push(record);
  return record;
}

/**
 * Why a code cannot be exchanged by this client for this redirect URI, as an invalid_grant
 * error (RFC 6749 section 4.1.3), or null when it can. A used code is reported by the caller,
 * which also revokes its grant.
 */
export function codeProblem(
  code: DeepReadonly<AuthorizationCodeRecord>,
  request: { clientId: string; redirectUri: string; nowMs: number },
): ReturnType<typeof oauthError> | null {
  if (code.clientId !== request.clientId) return oauthError('invalid_grant', 'The code was issued to another client');
  if (Date.parse(code.expiresAt) <= request.nowMs) {
    return oauthError(
      'invalid_grant',
      `The code expired at ${code.expiresAt}; codes are valid for a few minutes: sign in again`,
    );
  }
  if (code.redirectUri !== request.redirectUri) {
    return oauthError(
      'invalid_grant',
      `redirect_uri must be exactly the one of the authorization request (${JSON.stringify(code.redirectUri)}); got ${JSON.stringify(request.redirectUri)}`,
    );
  }
  return null;
}

/** Why a refresh token cannot be used by this client, or null. A spent or revoked one is reported by the caller. */
export function refreshProblem(
  token: DeepReadonly<RefreshTokenRecord>,
  request: { clientId: string; nowMs: number },
): ReturnType<typeof oauthError> | null {
  if (token.clientId !== request.clientId)
    return oauthError('invalid_grant', 'The refresh_token was issued to another client');
  const expiresAtMs = refreshExpiresAtMs(token);
  if (expiresAtMs <= request.nowMs) {
    return oauthError(
      'invalid_grant',
      `The refresh_token expired at ${iso(expiresAtMs)}; sign in again through /login`,
    );
  }
  return null;
}

/** Issues an access token and a refresh token of a grant (as its refresh token records it), valid `ttlSeconds` from `nowMs`. */
export function issueTokens(
  data: AccountDoc,
  input: Pick<RefreshTokenRecord, 'refreshToken' | 'clientId' | 'userId' | 'accountId' | 'grantId' | 'redirectUri'> & {
    accessToken: string;
    nowMs: number;
    ttlSeconds: number;
    /** Of a grant to a client of another account that the user allowed (see AccessTokenRecord.consented). */
    consented: boolean;
  },
): TokenResponse {
  const { clientId, userId, accountId, grantId } = input;
  const standing = input.consented ? { consented: true as const } : {};
  data.accessTokens.push({
    accessToken: input.accessToken,
    clientId,
    userId,
    accountId,
    grantId,
    expiresAt: iso(input.nowMs + input.ttlSeconds * 1000),
    revokedAt: null,
    ...standing,
  });
  data.refreshTokens.push({
    refreshToken: input.refreshToken,
    clientId,
    userId,
    accountId,
    grantId,
    redirectUri: input.redirectUri,
    createdAt: iso(input.nowMs),
    revokedAt: null,
    ...standing,
  });
  return {
    access_token: input.accessToken,
    refresh_token: input.refreshToken,
    token_type: 'Bearer',
    expires_in: input.ttlSeconds,
  };
}

/**
 * Revokes every access and refresh token of a grant that is not revoked yet; returns how many.
 * `by`: who asked, when not the sandbox's own rules (a replayed code or refresh token).
 */
export function revokeGrant(
  data: AccountDoc,
  grantId: string,
  nowIso: string,
  by?: NonNullable<AccessTokenRecord['revokedBy']>,
): number {
  let count = 0;
  for (const token of [...data.accessTokens, ...data.refreshTokens]) {
    if (token.grantId === grantId && token.revokedAt === null) {
      token.revokedAt = nowIso;
      if (by !== undefined) token.revokedBy = by;
      count++;
    }
  }
  return count;
}

/** Makes the live access tokens that `which` picks expire now (each on its own clock: tokenNowMs); returns how many. */
export function expireAccessTokens(
  data: AccountDoc,
  clocks: TokenClocks,
  which: (token: DeepReadonly<AccessTokenRecord>) => boolean = () => true,
): number {
  let count = 0;
  for (const token of data.accessTokens) {
    const nowMs = tokenNowMs(token, clocks);
    if (which(token) && token.revokedAt === null && Date.parse(token.expiresAt) > nowMs) {
      token.expiresAt = iso(nowMs);
      count++;
    }
  }
  return count;
}
