import type { RunningSandbox } from '../../src/server.js';
import {
  allowApp,
  askForCode,
  call,
  codeIn,
  exchange,
  HOSTED_ENV,
  registerApp,
  STRANGER_SIGN_OUT,
  tokenRequest,
  type RegisteredApp,
} from '../helpers/allowed-app.js';
import { DEMO_API_KEY, DEMO_USER } from '../helpers/demo.js';
import { HostedBrowser, type BrowserAnswer } from '../helpers/hosted-browser.js';
import { basicAuth } from '../helpers/oauth.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { replicaEnv, startReplica } from '../helpers/replicas.js';

// Issue #40, items 1, 5 and 9 on a hosted sandbox of two replicas on one Redis: what one replica
// decides (an app revoked, a token revoked, a consent page answered) holds at once on the other.

let redis: TestRedis;
let replicas: RunningSandbox[];
let app: RegisteredApp;
let browser: HostedBrowser;

beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis.dispose();
});
beforeEach(async () => {
  const env = replicaEnv(redis, redis.prefix(), { ...HOSTED_ENV, TOKEN_DELIVERY: 'false' });
  replicas = [await startReplica(env), await startReplica(env)];
  app = await registerApp(replicas[0]!.url);
  browser = new HostedBrowser(replicas[0]!.url);
  await browser.signIn(DEMO_USER);
});
afterEach(async () => {
  await Promise.all(replicas.map((r) => r.stop()));
});

const [one, two] = [(): string => replicas[0]!.url, (): string => replicas[1]!.url];

describe('through two replicas', () => {
  it("an allowed app's token: /v1 on either, no control on either; revoked on one, refused on the other at once", async () => {
    const tokens = await exchange(two(), app, await allowApp(browser, app));
    expect((await call(two(), 'GET', '/v1/locations', tokens.access_token)).status).toBe(200);
    expect((await call(one(), 'GET', '/v1/locations', tokens.access_token)).status).toBe(200);
    for (const url of [one(), two()])
      expect((await call(url, 'POST', '/sandbox/reset', tokens.access_token)).body?.['error']).toBe(
        'insufficient_scope',
      );

    const revoked = await call(
      one(),
      'DELETE',
      `/sandbox/connected-apps/${encodeURIComponent(app.clientId)}`,
      DEMO_API_KEY,
    );
    expect(revoked.status).toBe(200);
    expect((await call(two(), 'GET', '/v1/locations', tokens.access_token)).body?.['error']).toBe('token_revoked');
    const refreshed = await tokenRequest(two(), app, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
    });
    expect(refreshed.status).toBe(400);
    browser.at = two();
    expect((await askForCode(browser, app)).status).toBe(200);
  });

  it('a token revoked by its client on one replica is refused on the other', async () => {
    const tokens = await exchange(one(), app, await allowApp(browser, app));
    const res = await fetch(`${one()}/oauth2/revoke`, {
      method: 'POST',
      headers: {
        authorization: basicAuth(app.clientId, app.clientSecret),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token: tokens.refresh_token }),
    });
    expect(res.status).toBe(200);
    expect((await call(two(), 'GET', '/v1/locations', tokens.access_token)).status).toBe(403);
  });

  it('a consent page answered on one replica cannot be answered again on the other, nor twice at once across both', async () => {
    const page = await askForCode(browser, app, { state: 'a' });
    browser.at = two();
    codeIn(await browser.submit(page, '/login/consent', { decision: 'allow' }));
    browser.at = one();
    expect((await browser.submit(page, '/login/consent', { decision: 'allow', state: 'b' })).status).toBe(403);

    // Revoked, so the page shows again; its form sent to both replicas at once answers once.
    await call(one(), 'DELETE', `/sandbox/connected-apps/${encodeURIComponent(app.clientId)}`, DEMO_API_KEY);
    const again = await askForCode(browser, app, { state: 'c' });
    const sendTo = (url: string): Promise<BrowserAnswer> =>
      browser.via(url).submit(again, '/login/consent', { decision: 'allow' });
    const answers = await Promise.all([one(), two(), one(), two(), one(), two()].map(sendTo));
    expect(answers.map((a) => a.status).sort()).toEqual([302, 403, 403, 403, 403, 403]);
  });

  it("a sign-out link of the stranger's app opened on one replica ends no session on the other", async () => {
    browser.at = two();
    const asked = await browser.get(
      `/logout?${new URLSearchParams({ client_id: app.clientId, logout_uri: STRANGER_SIGN_OUT }).toString()}`,
    );
    expect({ status: asked.status, location: asked.location }).toEqual({ status: 200, location: null });
    browser.at = one();
    expect((await browser.get('/')).text).toContain('id="sign-out"');
  });
});
