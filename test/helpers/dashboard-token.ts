import { DASHBOARD_CLIENT_ID } from '../../src/auth/index.js';
import { changeDoc, type TestApp } from './build-test-app.js';

/**
 * Stores an access token of the dashboard's own client (marked internal, valid for an hour) for
 * the demo account's first user, as signing in to the dashboard does. Answers the token.
 */
export async function givenDashboardToken(t: TestApp, accessToken = 'dashboard-token'): Promise<string> {
  await changeDoc(
    t,
    (d) =>
      void d.accessTokens.push({
        accessToken,
        clientId: DASHBOARD_CLIENT_ID,
        userId: d.users[0]!.userId,
        accountId: d.account.accountId,
        expiresAt: new Date(t.clock.now().getTime() + 3_600_000).toISOString(),
        revokedAt: null,
        grantId: 'dashboard',
        internal: true,
      }),
  );
  return accessToken;
}
