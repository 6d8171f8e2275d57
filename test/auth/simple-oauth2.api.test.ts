import { AuthorizationCode, type ModuleOptions } from 'simple-oauth2';
import request from 'supertest';

import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_CLIENT, DEMO_LOCATIONS, DEMO_USER } from '../helpers/demo.js';
import { registerClient } from '../helpers/oauth-clients.js';
import { codeOf, formFields } from '../helpers/oauth.js';
import { listen } from './listening.js';

let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;

beforeEach(async () => {
  // The demo redirect URI has nothing listening; the token POST to it is not what these tests are about.
  t = await buildTestApp({ env: { TOKEN_DELIVERY: 'false' } });
  server = await listen(t.app);
});
afterEach(async () => {
  await t.deps.dispatcher.idle();
  await server.close();
});

/** Configured as production's example app: authorizePath 'login', tokenPath 'oauth2/token'. */
function oauthClient(id: string, secret: string, options: ModuleOptions['options'] = {}): AuthorizationCode {
  return new AuthorizationCode({
    client: { id, secret },
    auth: { tokenHost: server.baseUrl, authorizePath: 'login', tokenPath: 'oauth2/token', revokePath: 'oauth2/revoke' },
    options,
  });
}

/** Opens the authorize URL and signs in with the form, as a person would; returns the code. */
async function signInAt(
  authorizeUrl: string,
): Promise<{ code: string; state: string | null; agent: ReturnType<typeof request.agent> }> {
  const url = new URL(authorizeUrl);
  expect(url.origin + url.pathname).toBe(`${server.baseUrl}/login`);
  const agent = request.agent(server.baseUrl);
  const page = await agent.get(url.pathname + url.search).expect(200);
  const res = await agent
    .post('/login')
    .type('form')
    .send({ ...formFields(page.text), ...DEMO_USER });
  return { code: codeOf(res), state: new URL(res.headers['location'] as string).searchParams.get('state'), agent };
}

async function apiLocations(accessToken: string): Promise<Response> {
  return fetch(`${server.baseUrl}/v1/locations`, { headers: bearer(accessToken) });
}

describe('simple-oauth2 against the sandbox', () => {
  it('runs the whole flow: authorize URL, sign-in, getToken (Basic), API call, refresh, sign-out', async () => {
    const client = oauthClient(DEMO_CLIENT.clientId, DEMO_CLIENT.clientSecret);
    const { code, state, agent } = await signInAt(
      client.authorizeURL({ redirect_uri: DEMO_CLIENT.redirectUri, state: 'csrf-123' }),
    );
    expect(state).toBe('csrf-123');

    const token = await client.getToken({ code, redirect_uri: DEMO_CLIENT.redirectUri });
    expect(token.token).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    const api = await apiLocations(token.token['access_token'] as string);
    expect(api.status).toBe(200);
    expect(((await api.json()) as { total: number }).total).toBe(DEMO_LOCATIONS.length);

    const refreshed = await token.refresh();
    expect(refreshed.token['refresh_token']).not.toBe(token.token['refresh_token']);
    expect((await apiLocations(refreshed.token['access_token'] as string)).status).toBe(200);

    const signOut = await agent
      .get(
        `/logout?client_id=${DEMO_CLIENT.clientId}&logout_uri=${encodeURIComponent('http://localhost:3000/signed-out')}`,
      )
      .expect(302);
    expect(signOut.headers['location']).toBe('http://localhost:3000/signed-out');
  });

  it("revokes with its revokeAll (RFC 7009, the sandbox's /oauth2/revoke): the tokens are refused after", async () => {
    const client = oauthClient(DEMO_CLIENT.clientId, DEMO_CLIENT.clientSecret);
    const { code } = await signInAt(client.authorizeURL({ redirect_uri: DEMO_CLIENT.redirectUri }));
    const token = await client.getToken({ code, redirect_uri: DEMO_CLIENT.redirectUri });
    await token.revokeAll();
    expect((await apiLocations(token.token['access_token'] as string)).status).toBe(403);
    const failure = (await token.refresh().catch((e: unknown) => e)) as { data: { payload: { error: string } } };
    expect(failure.data.payload.error).toBe('invalid_grant');
  });

  it('reads error from the token endpoint error body, as the example app does', async () => {
    const client = oauthClient(DEMO_CLIENT.clientId, DEMO_CLIENT.clientSecret);
    const failure = (await client
      .getToken({ code: 'not-a-code', redirect_uri: DEMO_CLIENT.redirectUri })
      .catch((e: unknown) => e)) as {
      output: { statusCode: number };
      data: { payload: { error: string; error_description: string } };
    };
    expect(failure.output.statusCode).toBe(400);
    expect(failure.data.payload).toEqual({ error: 'invalid_grant', error_description: expect.any(String) });
  });

  it('refuses a refresh with a spent refresh token (rotation)', async () => {
    const client = oauthClient(DEMO_CLIENT.clientId, DEMO_CLIENT.clientSecret);
    const { code } = await signInAt(client.authorizeURL({ redirect_uri: DEMO_CLIENT.redirectUri }));
    const token = await client.getToken({ code, redirect_uri: DEMO_CLIENT.redirectUri });
    await token.refresh();
    const failure = (await token.refresh().catch((e: unknown) => e)) as { data: { payload: { error: string } } };
    expect(failure.data.payload.error).toBe('invalid_grant');
  });

  it('authenticates a client whose id and secret need form-encoding (strict credentials encoding)', async () => {
    const registered = await registerClient(t.app, {
      applicationName: 'Encoded App',
      description: 'Credentials with reserved characters',
      redirectUri: DEMO_CLIENT.redirectUri,
      signOutUri: 'https://partner.example/out',
      clientId: "app:1 + x/&=?'",
      clientSecret: "s3cr3t:with+plus %25 !*()'",
    });
    const client = oauthClient(registered.client_id, registered.client_secret);
    const { code } = await signInAt(client.authorizeURL({ redirect_uri: DEMO_CLIENT.redirectUri }));
    const token = await client.getToken({ code, redirect_uri: DEMO_CLIENT.redirectUri });
    expect((await token.refresh()).token['token_type']).toBe('Bearer');
  });

  it('works with the client credentials in the body (authorizationMethod: body)', async () => {
    const client = oauthClient(DEMO_CLIENT.clientId, DEMO_CLIENT.clientSecret, { authorizationMethod: 'body' });
    const { code } = await signInAt(client.authorizeURL({ redirect_uri: DEMO_CLIENT.redirectUri }));
    const token = await client.getToken({ code, redirect_uri: DEMO_CLIENT.redirectUri });
    expect((await apiLocations(token.token['access_token'] as string)).status).toBe(200);
  });
});
