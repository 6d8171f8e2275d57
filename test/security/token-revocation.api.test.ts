import { allowApp, call, exchange, hostedSandbox, registerApp, type RegisteredApp } from '../helpers/allowed-app.js';
import { docOf, type TestApp } from '../helpers/build-test-app.js';
import { DEMO_CLIENT, DEMO_USER } from '../helpers/demo.js';
import { HostedBrowser } from '../helpers/hosted-browser.js';
import { basicAuth, loginAndGetToken, type OAuthTokens } from '../helpers/oauth.js';

// POST /oauth2/revoke (RFC 7009) on a hosted sandbox over real HTTP: a client revokes its own
// tokens, a refresh token takes its grant along, and no client can revoke another's.

let t: TestApp;
let url: string;
let close: () => Promise<void>;

beforeEach(async () => {
  ({ t, url, close } = await hostedSandbox());
});
afterEach(async () => {
  await close();
});

const DEMO_APP: RegisteredApp = {
  clientId: DEMO_CLIENT.clientId,
  clientSecret: DEMO_CLIENT.clientSecret,
  applicationName: 'Demo Water App',
};

/** POST /oauth2/revoke as `app` (HTTP Basic unless `auth` says otherwise): status, body text, headers. */
async function revoke(
  form: Record<string, string>,
  app: RegisteredApp | null = DEMO_APP,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; json: () => unknown; headers: Headers }> {
  const res = await fetch(`${url}/oauth2/revoke`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(app ? { authorization: basicAuth(app.clientId, app.clientSecret) } : {}),
      ...headers,
    },
    body: new URLSearchParams(form),
  });
  const text = await res.text();
  return { status: res.status, text, json: () => JSON.parse(text) as unknown, headers: res.headers };
}

const refresh = async (app: RegisteredApp, refreshToken: string): Promise<number> =>
  (
    await fetch(`${url}/oauth2/token`, {
      method: 'POST',
      headers: {
        authorization: basicAuth(app.clientId, app.clientSecret),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }),
    })
  ).status;

const works = async (accessToken: string): Promise<number> =>
  (await call(url, 'GET', '/v1/locations', accessToken)).status;

describe('POST /oauth2/revoke', () => {
  it("revokes an access token alone: 200 with an empty JSON object, the token refused saying its client revoked it, the grant's refresh token still good", async () => {
    const tokens = await loginAndGetToken(t.app);
    const res = await revoke({ token: tokens.access_token, token_type_hint: 'access_token' });
    expect({ status: res.status, text: res.text, cache: res.headers.get('cache-control') }).toEqual({
      status: 200,
      text: '{}',
      cache: 'no-store',
    });
    const refused = await call(url, 'GET', '/v1/locations', tokens.access_token);
    expect(refused).toMatchObject({ status: 403, body: { error: 'token_revoked' } });
    expect(refused.body?.['message']).toEqual(expect.stringContaining('by its client (POST /oauth2/revoke)'));
    expect(await refresh(DEMO_APP, tokens.refresh_token)).toBe(200);
  });

  it('revokes a refresh token with its whole grant: the access tokens issued from the same sign-in end too (RFC 7009 section 2.1)', async () => {
    const first = await loginAndGetToken(t.app);
    const second = (await (
      await fetch(`${url}/oauth2/token`, {
        method: 'POST',
        headers: {
          authorization: basicAuth(DEMO_APP.clientId, DEMO_APP.clientSecret),
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: first.refresh_token }),
      })
    ).json()) as OAuthTokens;
    expect((await revoke({ token: second.refresh_token })).status).toBe(200);
    expect(await works(first.access_token)).toBe(403);
    expect(await works(second.access_token)).toBe(403);
    expect(await refresh(DEMO_APP, second.refresh_token)).toBe(400);
    // Another sign-in of the same client is another grant: untouched.
    const other = await loginAndGetToken(t.app);
    expect(await works(other.access_token)).toBe(200);
  });

  it('finds the token whatever the hint says: a refresh token sent as access_token is revoked all the same', async () => {
    const tokens = await loginAndGetToken(t.app);
    expect((await revoke({ token: tokens.refresh_token, token_type_hint: 'access_token' })).status).toBe(200);
    expect(await refresh(DEMO_APP, tokens.refresh_token)).toBe(400);
  });

  it('answers 200 for a token it does not know, and for one revoked already, as RFC 7009 section 2.2 says', async () => {
    expect((await revoke({ token: 'no-such-token' })).status).toBe(200);
    const tokens = await loginAndGetToken(t.app);
    expect((await revoke({ token: tokens.access_token })).status).toBe(200);
    expect((await revoke({ token: tokens.access_token })).status).toBe(200);
  });

  it("refuses a token of another client with 400 unauthorized_client and leaves it working: a stranger's client cannot sign a partner out of its app", async () => {
    const victim = await loginAndGetToken(t.app);
    const stranger = await registerApp(url);
    for (const token of [victim.access_token, victim.refresh_token]) {
      const res = await revoke({ token }, stranger);
      expect({ status: res.status, body: res.json() }).toEqual({
        status: 400,
        body: { error: 'unauthorized_client', error_description: expect.stringContaining('issued to another client') },
      });
    }
    expect(await works(victim.access_token)).toBe(200);
    expect(await refresh(DEMO_APP, victim.refresh_token)).toBe(200);
  });

  it("lets an application of another account revoke the tokens it holds for the account that allowed it, and no other's", async () => {
    const app = await registerApp(url);
    const browser = new HostedBrowser(url);
    await browser.signIn(DEMO_USER);
    const tokens = await exchange(url, app, await allowApp(browser, app));
    const own = await loginAndGetToken(t.app);
    expect((await revoke({ token: own.access_token }, app)).status).toBe(400);
    expect((await revoke({ token: tokens.refresh_token }, app)).status).toBe(200);
    expect(await works(tokens.access_token)).toBe(403);
    expect(await works(own.access_token)).toBe(200);
    // The consent stays: the user signed out of the app, the account did not revoke it.
    expect((await docOf(t)).connectedApps).toHaveLength(1);
  });

  const basic = basicAuth(DEMO_APP.clientId, DEMO_APP.clientSecret);
  const form = 'application/x-www-form-urlencoded';
  it.each([
    ['no client authentication', 'token=a', {}, form, 401, 'invalid_client'],
    [
      'a wrong client secret',
      'token=a',
      { authorization: basicAuth(DEMO_APP.clientId, 'wrong') },
      form,
      401,
      'invalid_client',
    ],
    ['no token', '', { authorization: basic }, form, 400, 'invalid_request'],
    ['an empty token', 'token=', { authorization: basic }, form, 400, 'invalid_request'],
    ['a token given twice', 'token=a&token=b', { authorization: basic }, form, 400, 'invalid_request'],
    [
      'a token_type_hint it does not know',
      'token=a&token_type_hint=id_token',
      { authorization: basic },
      form,
      400,
      'invalid_request',
    ],
    [
      'two ways of client authentication',
      `token=a&client_id=${DEMO_APP.clientId}&client_secret=${DEMO_APP.clientSecret}`,
      { authorization: basic },
      form,
      400,
      'invalid_request',
    ],
    ['a JSON body', '{"token":"a"}', { authorization: basic }, 'application/json', 400, 'invalid_request'],
  ] as const)('answers %s with an RFC 6749 error, revoking nothing', async (_case, body, auth, type, status, error) => {
    const tokens = await loginAndGetToken(t.app);
    const res = await fetch(`${url}/oauth2/revoke`, {
      method: 'POST',
      headers: { 'content-type': type, ...auth },
      body: body.replace('token=a', `token=${tokens.access_token}`),
    });
    expect({ status: res.status, body: await res.json() }).toEqual({
      status,
      body: { error, error_description: expect.stringMatching(/\S/) },
    });
    if (status === 401) expect(res.headers.get('www-authenticate')).toBe('Basic realm="oauth2"');
    expect(await works(tokens.access_token)).toBe(200);
  });

  it('accepts client_id and client_secret in the form (client_secret_post)', async () => {
    const tokens = await loginAndGetToken(t.app);
    const res = await revoke(
      { token: tokens.access_token, client_id: DEMO_APP.clientId, client_secret: DEMO_APP.clientSecret },
      null,
    );
    expect(res.status).toBe(200);
    expect(await works(tokens.access_token)).toBe(403);
  });
});
