import { DASHBOARD_CLIENT_ID } from '../auth/index.js';
import type { AccountDoc } from '../store/data.js';
import type { TokenAnswer } from './page-config.js';

export { DASHBOARD_CLIENT_ID };

export interface DashboardTokenRequest {
  /** Groups the tokens of one browser session, so signing out revokes them all. */
  grantId: string;
  userId: string;
  accountId: string;
  /** The process clock's now (real time), in ms: the page's tokens do not follow the account clock. */
  processMs: number;
  ttlSeconds: number;
  /** Used only when no current token can be reused. */
  newToken: string;
}

/**
 * The access token the dashboard page embeds. A token of the same session that still has at
 * least half its lifetime left is reused, so reloading the page does not pile up tokens;
 * otherwise a new one is issued, expiring after the access-token lifetime of real time (the
 * process clock), so moving the account's clock never refuses the page's own calls.
 */
export function dashboardToken(data: AccountDoc, request: DashboardTokenRequest): TokenAnswer {
  const { grantId, userId, accountId, processMs, ttlSeconds } = request;
  const reusable = data.accessTokens.find(
    (t) =>
      t.internal === true &&
      t.grantId === grantId &&
      t.userId === userId &&
      t.accountId === accountId &&
      t.revokedAt === null &&
      Date.parse(t.expiresAt) - processMs >= (ttlSeconds * 1000) / 2,
  );
  if (reusable) {
    const expiresIn = Math.floor((Date.parse(reusable.expiresAt) - processMs) / 1000);
    return { accessToken: reusable.accessToken, expiresAt: reusable.expiresAt, expiresIn };
  }
  // SANDBOX: production has no such page; the sandbox's dashboard is a first-party client that gets
  // an access token without the OAuth flow, expiring after ACCESS_TOKEN_TTL of real time, whatever
  // the account clock does (a partner's tokens expire on the account clock: tokenNowMs).
  // It is the sandbox's own (internal), which is recorded here, where it is issued.
  const expiresAt = new Date(processMs + ttlSeconds * 1000).toISOString();
  data.accessTokens.push({
    accessToken: request.newToken,
    clientId: DASHBOARD_CLIENT_ID,
    userId,
    accountId,
    grantId,
    expiresAt,
    revokedAt: null,
    internal: true,
  });
  return { accessToken: request.newToken, expiresAt, expiresIn: ttlSeconds };
}
