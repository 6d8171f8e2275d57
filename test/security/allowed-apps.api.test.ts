import { resolveCredential } from '../../src/auth/index.js';
import type { AccountStore } from '../../src/store/store.js';
import {
  allowApp,
  askForCode,
  call,
  codeIn,
  exchange,
  registerApp,
  STRANGER_CALLBACK,
  tokenRequest,
  useStrangersScene,
} from '../helpers/allowed-app.js';
import { docOf, type TestApp } from '../helpers/build-test-app.js';
import { DEMO_ACCOUNT_ID, DEMO_API_KEY, DEMO_USER, OTHER_ACCOUNT_ID, OTHER_API_KEY } from '../helpers/demo.js';
import { loginAndGetToken, type OAuthTokens } from '../helpers/oauth.js';
import { eventually } from '../helpers/waiting.js';
import { API_ROUTES, fillPath, givenRouteIds, RELAY_ROUTES, routeName } from '../http/route-table.js';

// Issue #40, item 1, on a hosted sandbox over real HTTP: after a user of the demo account allowed
// an application that a stranger (the other account) registered, that application's tokens reach
// the demo account's /v1 API and nothing else, and the account sees the application and can cut
// it off at once.

const scene = useStrangersScene();

/** The stranger's application, allowed by the demo user: its tokens for the demo account. */
const allowedTokens = async (): Promise<OAuthTokens> =>
  exchange(scene.url, scene.app, await allowApp(scene.browser, scene.app));

/** Counts the changes of accounts the sandbox makes through its store from now on. */
function countWrites(sandbox: TestApp): { count: () => number; restore: () => void } {
  const accounts = sandbox.deps.store.accounts as { update: AccountStore['update'] };
  const original = accounts.update;
  let count = 0;
  accounts.update = ((accountId, change) => {
    count++;
    return original.call(accounts, accountId, change);
  }) as AccountStore['update'];
  return { count: () => count, restore: () => void (accounts.update = original) };
}

const refresh = (refreshToken: string): Promise<Response> =>
  tokenRequest(scene.url, scene.app, { grant_type: 'refresh_token', refresh_token: refreshToken });

describe("an allowed application's token", () => {
  it("reaches the account's /v1 API, and is marked as the consent kind when issued", async () => {
    const tokens = await allowedTokens();
    const locations = await call(scene.url, 'GET', '/v1/locations', tokens.access_token);
    expect(locations.status).toBe(200);
    expect((locations.body as { total: number }).total).toBeGreaterThan(0);
    const stored = (await docOf(scene.t)).accessTokens.find((x) => x.accessToken === tokens.access_token);
    expect(stored).toMatchObject({ clientId: scene.app.clientId, consented: true });
  });

  // Every control of the route table, and the relay's: none acts for the application.
  const controls = [
    ...API_ROUTES.filter((r) => r.guard === 'account' && r.path.startsWith('/sandbox/')),
    ...RELAY_ROUTES.map((r) => ({ ...r, path: r.path === '/:relayId' ? '/relay/:relayId' : r.path })),
  ];
  const relayIds = { relayId: 'r-1', requestId: 'q-1' };

  it.each(controls.map((route) => [routeName(route), route] as const))(
    'is refused on %s: 403 insufficient_scope saying why, and nothing changes',
    async (_name, route) => {
      const ids = { ...(await givenRouteIds(scene.t.app)), ...relayIds };
      const tokens = await allowedTokens();
      const before = JSON.stringify(await docOf(scene.t));
      const query = 'query' in route && typeof route.query === 'string' ? `?${route.query}` : '';
      const path = fillPath(route.path, ids) + query;
      const res = await call(
        scene.url,
        route.method.toUpperCase(),
        path,
        tokens.access_token,
        'body' in route ? route.body : undefined,
      );
      expect({ status: res.status, error: res.body?.['error'] }).toEqual({ status: 403, error: 'insufficient_scope' });
      expect(res.body?.['message']).toEqual(expect.stringContaining('an application of another account (client_id'));
      expect(res.body?.['message']).toEqual(expect.stringContaining('it reaches the /v1 API only'));
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="water-sandbox", error="insufficient_scope"/);
      expect(JSON.stringify(await docOf(scene.t))).toBe(before);
    },
  );

  it("is refused where the issue found it acting: registering a client inside the account, reading its clients' secrets, resetting it", async () => {
    const tokens = await allowedTokens();
    expect(
      (await call(scene.url, 'POST', '/sandbox/oauth-clients', tokens.access_token, { applicationName: 'x' })).status,
    ).toBe(403);
    expect((await call(scene.url, 'GET', '/sandbox/oauth-clients', tokens.access_token)).status).toBe(403);
    expect((await call(scene.url, 'POST', '/sandbox/reset', tokens.access_token)).status).toBe(403);
    expect((await docOf(scene.t)).oauthClients).toEqual([]);
  });

  it('is refused by the authorization anything authorized like the controls calls (resolveCredential), unless it asks for the /v1 reach', async () => {
    const tokens = await allowedTokens();
    await expect(resolveCredential(scene.t.deps, tokens.access_token)).rejects.toMatchObject({
      status: 403,
      code: 'insufficient_scope',
    });
    expect(await resolveCredential(scene.t.deps, tokens.access_token, 'api')).toMatchObject({
      accountId: DEMO_ACCOUNT_ID,
      allowedApp: scene.app.clientId,
    });
    expect(await resolveCredential(scene.t.deps, DEMO_API_KEY)).toMatchObject({ allowedApp: null });
  });

  it("leaves the account's own credentials the controls: its API key, and a token of its own client", async () => {
    await allowedTokens();
    expect((await call(scene.url, 'GET', '/sandbox/clock', DEMO_API_KEY)).status).toBe(200);
    const own = await loginAndGetToken(scene.t.app);
    expect((await call(scene.url, 'GET', '/sandbox/clock', own.access_token)).status).toBe(200);
  });
});

describe('connected apps', () => {
  it("lists the application for the account: its name, website, owner's account, who allowed it, when, and its last use", async () => {
    const before = scene.t.clock.now().toISOString();
    const tokens = await allowedTokens();
    await call(scene.url, 'GET', '/v1/locations', tokens.access_token);
    const listed = await call(scene.url, 'GET', '/sandbox/connected-apps', DEMO_API_KEY);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      connectedApps: [
        {
          clientId: scene.app.clientId,
          applicationName: 'Totally Legit Water App',
          applicationWebsite: 'https://evil.example',
          ownerAccountName: (await docOf(scene.t, OTHER_ACCOUNT_ID)).account.name,
          allowedBy: DEMO_USER.email,
          allowedAt: before,
          lastUsedAt: before,
        },
      ],
    });
    // The stranger's own account does not see it: it is the demo account's.
    expect((await call(scene.url, 'GET', '/sandbox/connected-apps', OTHER_API_KEY)).body).toEqual({
      connectedApps: [],
    });
  });

  it('is not asked about again while kept: the next sign-in returns a code at once, a grant of the same kind', async () => {
    await allowedTokens();
    const again = await askForCode(scene.browser, scene.app, { state: 'second' });
    const tokens = await exchange(scene.url, scene.app, codeIn(again));
    expect((await call(scene.url, 'GET', '/sandbox/clock', tokens.access_token)).status).toBe(403);
    expect((await call(scene.url, 'GET', '/v1/locations', tokens.access_token)).status).toBe(200);
  });

  it('revoking one ends its access and refresh tokens at once, and the consent page shows again', async () => {
    const tokens = await allowedTokens();
    const revoked = await call(
      scene.url,
      'DELETE',
      `/sandbox/connected-apps/${encodeURIComponent(scene.app.clientId)}`,
      DEMO_API_KEY,
    );
    expect(revoked).toMatchObject({ status: 200, body: { clientId: scene.app.clientId, revokedTokens: 2 } });

    const refused = await call(scene.url, 'GET', '/v1/locations', tokens.access_token);
    expect(refused).toMatchObject({ status: 403, body: { error: 'token_revoked' } });
    expect(refused.body?.['message']).toEqual(
      expect.stringContaining('by the account, which revoked this application'),
    );
    const refreshed = await refresh(tokens.refresh_token);
    expect(refreshed.status).toBe(400);
    expect(await refreshed.json()).toEqual({
      error: 'invalid_grant',
      error_description: expect.stringContaining('revoked this application (connected apps)'),
    });
    expect((await call(scene.url, 'GET', '/sandbox/connected-apps', DEMO_API_KEY)).body).toEqual({ connectedApps: [] });
    const page = await askForCode(scene.browser, scene.app);
    expect(page.status).toBe(200);
    expect(page.text).toContain('name="decision" value="allow"');
  });

  it('revoking ends a code issued but not yet exchanged: allowing the app again does not bring it back', async () => {
    await allowedTokens();
    const pending = codeIn(await askForCode(scene.browser, scene.app));
    await call(scene.url, 'DELETE', `/sandbox/connected-apps/${encodeURIComponent(scene.app.clientId)}`, DEMO_API_KEY);
    await allowApp(scene.browser, scene.app);
    const late = await tokenRequest(scene.url, scene.app, {
      grant_type: 'authorization_code',
      code: pending,
      redirect_uri: STRANGER_CALLBACK,
    });
    expect(late.status).toBe(400);
    expect(((await late.json()) as { error: string }).error).toBe('invalid_grant');
  });

  it('a revoked app racing a refresh keeps nothing: whichever comes first, no token of it works after', async () => {
    for (let round = 0; round < 5; round++) {
      const tokens = await allowedTokens();
      const [refreshed] = await Promise.all([
        refresh(tokens.refresh_token),
        call(scene.url, 'DELETE', `/sandbox/connected-apps/${encodeURIComponent(scene.app.clientId)}`, DEMO_API_KEY),
      ]);
      const body = (await refreshed.json()) as Partial<OAuthTokens>;
      for (const token of [tokens.access_token, body.access_token].filter((x) => x !== undefined))
        expect((await call(scene.url, 'GET', '/v1/locations', token)).status).toBe(403);
      if (body.refresh_token !== undefined) expect((await refresh(body.refresh_token)).status).toBe(400);
      expect((await docOf(scene.t)).accessTokens.filter((x) => x.consented && x.revokedAt === null)).toEqual([]);
    }
  });

  it('answers 404 for a client that is not connected: an unknown one, and one of its own (deleted elsewhere)', async () => {
    const unknown = await call(scene.url, 'DELETE', '/sandbox/connected-apps/nobody', DEMO_API_KEY);
    expect(unknown).toMatchObject({ status: 404, body: { error: 'not_found' } });
    const own = await registerApp(scene.url, { applicationName: 'Mine' }, DEMO_API_KEY);
    const mine = await call(
      scene.url,
      'DELETE',
      `/sandbox/connected-apps/${encodeURIComponent(own.clientId)}`,
      DEMO_API_KEY,
    );
    expect(mine.status).toBe(404);
    expect(mine.body?.['message']).toEqual(expect.stringContaining('DELETE /sandbox/oauth-clients/{clientId}'));
  });

  it("the stranger cannot revoke or read the account's connected apps with its own key", async () => {
    const tokens = await allowedTokens();
    const theirs = await call(
      scene.url,
      'DELETE',
      `/sandbox/connected-apps/${encodeURIComponent(scene.app.clientId)}`,
      OTHER_API_KEY,
    );
    expect(theirs.status).toBe(404);
    expect((await call(scene.url, 'GET', '/v1/locations', tokens.access_token)).status).toBe(200);
  });

  it('records the last use at most once a minute: calls of the app do not each write the account', async () => {
    const tokens = await allowedTokens();
    const writes = countWrites(scene.t);
    for (let i = 0; i < 20; i++)
      expect((await call(scene.url, 'GET', '/v1/locations', tokens.access_token)).status).toBe(200);
    expect(writes.count()).toBe(1);
    scene.t.clock.advance(61_000);
    await call(scene.url, 'GET', '/v1/locations', tokens.access_token);
    const lastUsed = async (): Promise<string | null | undefined> =>
      (await docOf(scene.t)).connectedApps?.[0]?.lastUsedAt;
    await eventually(async () => (await lastUsed()) === scene.t.clock.now().toISOString());
    expect(writes.count()).toBe(2);
    writes.restore();
  });

  it('a client deleted and registered again under the same id is another application: its old grant ends, and the page asks again', async () => {
    const tokens = await allowedTokens();
    await call(scene.url, 'DELETE', `/sandbox/oauth-clients/${encodeURIComponent(scene.app.clientId)}`, OTHER_API_KEY);
    scene.t.clock.advance(1000);
    const again = await registerApp(scene.url, { clientId: scene.app.clientId, clientSecret: scene.app.clientSecret });
    const refreshed = await tokenRequest(scene.url, again, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
    });
    expect(refreshed.status).toBe(400);
    expect(((await refreshed.json()) as { error_description: string }).error_description).toContain(
      'registered again since it was allowed',
    );
    expect((await askForCode(scene.browser, again)).status).toBe(200);
  });

  it('a grant of the consent kind stored without its mark or its app (before 0.4.0) cannot be refreshed: the user is asked again', async () => {
    const tokens = await allowedTokens();
    await scene.t.store.accounts.update(DEMO_ACCOUNT_ID, (d) => {
      for (const token of [...d.accessTokens, ...d.refreshTokens]) delete token.consented;
      delete d.connectedApps;
    });
    const refreshed = await refresh(tokens.refresh_token);
    expect(refreshed.status).toBe(400);
    expect((await askForCode(scene.browser, scene.app)).status).toBe(200);
  });
});

describe('what the controls say they do to refresh tokens', () => {
  it('POST /sandbox/tokens/expire expires access tokens, says refresh tokens are unchanged, and a refresh still works', async () => {
    const tokens = await allowedTokens();
    const expired = await call(scene.url, 'POST', '/sandbox/tokens/expire', DEMO_API_KEY, {});
    expect(expired.body).toEqual({
      expired: 1,
      refreshTokens: expect.stringContaining('Unchanged: clients get new access tokens with their refresh tokens'),
    });
    expect((await call(scene.url, 'GET', '/v1/locations', tokens.access_token)).body?.['error']).toBe('token_expired');
    expect((await refresh(tokens.refresh_token)).status).toBe(200);
  });

  it("POST /sandbox/reset revokes the applications of other accounts with their tokens, and keeps the account's own", async () => {
    const tokens = await allowedTokens();
    const own = await loginAndGetToken(scene.t.app);
    const reset = await call(scene.url, 'POST', '/sandbox/reset', DEMO_API_KEY);
    expect(reset.body).toMatchObject({
      reset: DEMO_ACCOUNT_ID,
      revokedApps: 1,
      credentials: expect.stringContaining('Revoked: every application of another account'),
    });
    expect((await call(scene.url, 'GET', '/v1/locations', tokens.access_token)).body?.['error']).toBe('token_revoked');
    expect((await refresh(tokens.refresh_token)).status).toBe(400);
    expect((await call(scene.url, 'GET', '/sandbox/clock', own.access_token)).status).toBe(200);
    expect((await askForCode(scene.browser, scene.app)).status).toBe(200);
  });
});
