import { DASHBOARD_CLIENT_ID } from '../auth/index.js';
import type { AccountDoc } from '../store/data.js';

export { DASHBOARD_CLIENT_ID };

export interface DashboardTokenRequest {
  /** Groups the tokens of one browser session, so signing out revokes them all. */
  grantId: string;
  userId: string;
  accountId: string;
  /** The account clock's now, in ms. */
  nowMs: number;
  ttlSeconds: number;
  /** Used only when no current token can be reused. */
  newToken: string;
}

/**
 * The access token the dashboard page embeds. A token of the same session that still has at
 * least half its lifetime left is reused, so reloading the page does not pile up tokens;
 * otherwise a new one is issued, expiring like an OAuth access token on the account clock.
 */
export function dashboardToken(
  data: AccountDoc,
  request: DashboardTokenRequest,
): { accessToken: string; expiresAt: string } {
  const { grantId, userId, accountId, nowMs, ttlSeconds } = request;
  const reusable = data.accessTokens.find(
    (t) =>
      t.internal === true &&
      t.grantId === grantId &&
      t.userId === userId &&
      t.accountId === accountId &&
      t.revokedAt === null &&
      Date.parse(t.expiresAt) - nowMs >= (ttlSeconds * 1000) / 2,
  );
  if (reusable) return { accessToken: reusable.accessToken, expiresAt: reusable.expiresAt };
  // SANDBOX: production has no such page; the sandbox's dashboard is a first-party client that gets
  // an access token without the OAuth flow, expiring after ACCESS_TOKEN_TTL on the account clock.
  // It is the sandbox's own (internal), which is recorded here, where it is issued.
  const expiresAt = new Date(nowMs + ttlSeconds * 1000).toISOString();
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
  return { accessToken: request.newToken, expiresAt };
}
