import request from 'supertest';

import { DASHBOARD_CLIENT_ID } from '../../src/auth/index.js';
import { buildTestApp, changeDoc, docOf, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_ACCOUNT_ID, DEMO_API_KEY, DEMO_USER } from '../helpers/demo.js';
import { registerClient } from '../helpers/oauth-clients.js';
import {
  basicAuth,
  formFields,
  loginAndGetToken,
  loginPath,
  NATIVE_REDIRECT_URI,
  partnerRegistration,
  submitLogin,
} from '../helpers/oauth.js';

// The account takeover of issue #29: a stranger with a free account registers a client whose
// redirect URI is their own site, and gets a partner who is signed in to open /login for it.
// The sandbox must ask the partner first (a consent page), and issue no code without Allow.

const EVIL_CALLBACK = 'https://evil.example/cb';

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});

type Agent = ReturnType<typeof request.agent>;

/** The stranger's free account and their client, redirecting to their own site. */
async function strangersClient(): Promise<{ apiKey: string; clientId: string; clientSecret: string }> {
  const account = await request(t.app)
    .post('/sandbox/accounts')
    .set('X-Forwarded-For', '198.51.100.66')
    .send({})
    .expect(201);
  const apiKey = (account.body as { apiKey: string }).apiKey;
  const registered = await registerClient(
    t.app,
    {
      applicationName: 'Totally Legit Water App',
      applicationWebsite: 'https://evil.example',
      redirectUri: EVIL_CALLBACK,
    },
    apiKey,
  );
  return { apiKey, clientId: registered.client_id, clientSecret: registered.client_secret };
}

/** The partner's browser, signed in to the sandbox (the dashboard's sign-in). */
async function signedInPartner(): Promise<Agent> {
  const agent = request.agent(t.app);
  const form = await agent.get('/').expect(200);
  await agent
    .post('/dashboard/sign-in')
    .type('form')
    .send({ ...formFields(form.text), ...DEMO_USER })
    .expect(303);
  return agent;
}

/** The signed-in partner on the consent page of the stranger's client, which asks back to the stranger's site (with `state` when given). */
async function onStrangersConsentPage(
  state?: string,
): Promise<{ stranger: Awaited<ReturnType<typeof strangersClient>>; partner: Agent; page: request.Response }> {
  const stranger = await strangersClient();
  const partner = await signedInPartner();
  const page = await partner
    .get(loginPath({ clientId: stranger.clientId, redirectUri: EVIL_CALLBACK, state }))
    .expect(200);
  return { stranger, partner, page };
}

/** The partner's answer on the consent page: its form sent with `decision`, and any field changed. */
const answerConsent = (
  partner: Agent,
  page: request.Response,
  decision: 'allow' | 'deny',
  changed: Record<string, string> = {},
): request.Test =>
  partner
    .post('/login/consent')
    .type('form')
    .send({ ...formFields(page.text), ...changed, decision });

const codesOfDemo = async (): Promise<number> => (await docOf(t, DEMO_ACCOUNT_ID)).authorizationCodes.length;

describe('the OAuth takeover of a signed-in partner', () => {
  it('stops at a consent page: the link answers 200 with the application, its website and the account, and issues no code', async () => {
    const stranger = await strangersClient();
    const partner = await signedInPartner();
    const before = await codesOfDemo();

    const page = await partner.get(
      loginPath({ clientId: stranger.clientId, redirectUri: EVIL_CALLBACK, state: 'st4te' }),
    );

    expect(page.status).toBe(200);
    expect(page.headers['location']).toBeUndefined();
    expect(page.text).toContain('Totally Legit Water App');
    expect(page.text).toContain('https://evil.example');
    expect(page.text).toContain((await docOf(t)).account.name);
    expect(page.text).toContain('name="decision" value="allow"');
    expect(page.text).toContain('name="decision" value="deny"');
    expect(await codesOfDemo()).toBe(before);
  });

  it('gets no code from a cross-site POST of the consent form without its CSRF token', async () => {
    const { stranger, partner } = await onStrangersConsentPage();
    const before = await codesOfDemo();

    const forged = await partner.post('/login/consent').type('form').send({
      response_type: 'code',
      client_id: stranger.clientId,
      redirect_uri: EVIL_CALLBACK,
      decision: 'allow',
      csrf_token: 'guessed',
    });

    expect(forged.status).toBe(403);
    expect(forged.headers['location']).toBeUndefined();
    expect(await codesOfDemo()).toBe(before);
  });

  it('Deny redirects to the redirect URI with error=access_denied and the state, and issues no code', async () => {
    const { partner, page } = await onStrangersConsentPage('st4te');
    const before = await codesOfDemo();

    const denied = await answerConsent(partner, page, 'deny').expect(302);

    const target = new URL(denied.headers['location'] as string);
    expect(`${target.origin}${target.pathname}`).toBe(EVIL_CALLBACK);
    expect(Object.fromEntries(target.searchParams)).toEqual({ error: 'access_denied', state: 'st4te' });
    expect(denied.headers['cache-control']).toBe('no-store');
    expect(await codesOfDemo()).toBe(before);
  });

  it('Deny without a state sends error=access_denied alone', async () => {
    const { partner, page } = await onStrangersConsentPage();
    const denied = await answerConsent(partner, page, 'deny').expect(302);
    expect(denied.headers['location']).toBe(`${EVIL_CALLBACK}?error=access_denied`);
  });

  it("Allow issues a code for the signed-in partner, which the client exchanges for a token of the partner's account", async () => {
    const { stranger, partner, page } = await onStrangersConsentPage('st4te');

    const allowed = await answerConsent(partner, page, 'allow').expect(302);
    expect(allowed.headers['cache-control']).toBe('no-store');
    expect(page.headers['cache-control']).toBe('no-store');

    const target = new URL(allowed.headers['location'] as string);
    expect(target.searchParams.get('state')).toBe('st4te');
    const code = target.searchParams.get('code');
    expect(code).toEqual(expect.any(String));
    const tokens = await request(t.app)
      .post('/oauth2/token')
      .set('Authorization', basicAuth(stranger.clientId, stranger.clientSecret))
      .type('form')
      .send({ grant_type: 'authorization_code', code: code!, redirect_uri: EVIL_CALLBACK })
      .expect(200);
    const locations = await request(t.app)
      .get('/v1/locations')
      .set(bearer((tokens.body as { access_token: string }).access_token))
      .expect(200);
    expect((locations.body as { total: number }).total).toBeGreaterThan(0);
  });

  it('a consent form of one client does not allow another: the token is bound to the client and redirect URI', async () => {
    const { partner, page } = await onStrangersConsentPage();
    const other = await strangersClient();
    const before = await codesOfDemo();
    await answerConsent(partner, page, 'allow', { client_id: other.clientId }).expect(403);
    expect(await codesOfDemo()).toBe(before);
  });

  it("a browser that signs in on the form of another account's client sees the consent page too, not a code", async () => {
    const stranger = await strangersClient();
    const agent = request.agent(t.app);
    const signedIn = await submitLogin(agent, { clientId: stranger.clientId, redirectUri: EVIL_CALLBACK });
    expect(signedIn.status).toBe(200);
    expect(signedIn.text).toContain('name="decision" value="allow"');
    expect((await docOf(t)).authorizationCodes).toEqual([]);
  });
});

describe('clients that keep the one-step return', () => {
  it('a fixture client (demo-client): a signed-in browser goes straight back with a code', async () => {
    const partner = await signedInPartner();
    const res = await partner.get(loginPath({ state: 'x' })).expect(302);
    expect(res.headers['location']).toMatch(/^waterapp:\/\/callback\?code=[^&]+&state=x$/);
  });

  it("a client registered by the signed-in user's own account: straight back with a code", async () => {
    const own = await registerClient(t.app);
    const partner = await signedInPartner();
    const res = await partner.get(loginPath({ clientId: own.client_id })).expect(302);
    expect(res.headers['location']).toMatch(/^waterapp:\/\/callback\?code=/);
  });
});

describe('client ids the sandbox uses itself', () => {
  it('cannot be registered: 409 client_id_reserved naming the id', async () => {
    const res = await request(t.app)
      .post('/sandbox/oauth-clients')
      .set(bearer(DEMO_API_KEY))
      .send(partnerRegistration({ clientId: DASHBOARD_CLIENT_ID }))
      .expect(409);
    expect(res.body).toEqual({
      error: 'client_id_reserved',
      message: expect.stringContaining(`"${DASHBOARD_CLIENT_ID}" is reserved`),
    });
    expect((await docOf(t)).oauthClients).toEqual([]);
  });
});

describe("a token's standing", () => {
  const inAnHour = (): string => new Date(t.clock.now().getTime() + 3_600_000).toISOString();
  const journalPaths = async (): Promise<string[]> =>
    (
      (await request(t.app).get('/sandbox/requests').set(bearer(DEMO_API_KEY)).expect(200)).body as {
        requests: { path: string }[];
      }
    ).requests.map((r) => r.path);

  it("is the sandbox's own only for the dashboard page's token, marked when it is issued", async () => {
    const partner = await signedInPartner();
    await partner.get('/').expect(200);
    const tokens = (await docOf(t)).accessTokens;
    expect(tokens).toEqual([expect.objectContaining({ clientId: DASHBOARD_CLIENT_ID, internal: true })]);
  });

  it("of a client registered as sandbox-dashboard before the id was reserved is a partner's: journalled, and faults apply", async () => {
    // Older data: a stranger registered the dashboard's id for their own client.
    await changeDoc(
      t,
      (d) =>
        void d.oauthClients.push({
          clientId: DASHBOARD_CLIENT_ID,
          clientSecret: 'stranger-secret',
          applicationName: 'Not the dashboard',
          redirectUris: [NATIVE_REDIRECT_URI],
          signOutUris: [],
          registration: {
            name: 'S',
            companyName: 'S',
            email: 's@evil.example',
            phone: '+1 555 0100 300',
            applicationWebsite: 'https://evil.example',
            description: 'x',
            accountId: DEMO_ACCOUNT_ID,
          },
          postTokenToRedirectUri: false,
          createdAt: t.clock.now().toISOString(),
        }),
    );
    const tokens = await loginAndGetToken(t.app, { clientId: DASHBOARD_CLIENT_ID, clientSecret: 'stranger-secret' });
    expect((await docOf(t)).accessTokens.find((x) => x.accessToken === tokens.access_token)).not.toHaveProperty(
      'internal',
    );
    await request(t.app)
      .post('/sandbox/faults')
      .set(bearer(DEMO_API_KEY))
      .send({ path: '/v1/locations', status: 503, times: 1 })
      .expect(201);
    await request(t.app).get('/v1/locations').set(bearer(tokens.access_token)).expect(503);
    expect(await journalPaths()).toContain('/v1/locations');
  });

  it("of a stored token without the mark (older data) is a partner's, whatever its client id", async () => {
    await changeDoc(
      t,
      (d) =>
        void d.accessTokens.push({
          accessToken: 'older-token',
          clientId: DASHBOARD_CLIENT_ID,
          userId: d.users[0]!.userId,
          accountId: DEMO_ACCOUNT_ID,
          expiresAt: inAnHour(),
          revokedAt: null,
          grantId: 'g',
        }),
    );
    await request(t.app)
      .post('/sandbox/faults')
      .set(bearer(DEMO_API_KEY))
      .send({ path: '/v1/locations', status: 503, times: 1 })
      .expect(201);
    await request(t.app).get('/v1/locations').set(bearer('older-token')).expect(503);
    await request(t.app).get('/v1/locations').set(bearer('older-token')).expect(200);
    expect((await journalPaths()).filter((p) => p === '/v1/locations')).toHaveLength(2);
  });
});
