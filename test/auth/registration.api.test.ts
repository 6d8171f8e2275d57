import request from 'supertest';

import { buildTestApp, docOf, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_ACCOUNT_ID, DEMO_API_KEY, OTHER_ACCOUNT_ID, OTHER_API_KEY } from '../helpers/demo.js';
import { loginAndGetToken, loginPath } from '../helpers/oauth.js';

const VALID = {
  name: 'Pat Partner',
  companyName: 'Partner Inc.',
  email: 'pat@partner.example',
  phone: '+1 (555) 0100-300',
  applicationName: 'Partner Water App',
  applicationWebsite: 'https://partner.example',
  description: 'Shows water use and leak alerts to our customers',
  redirectUri: 'https://partner.example/oauth/callback',
  signOutUri: 'https://partner.example/signed-out',
};

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => {
  await t.deps.dispatcher.idle();
});

const register = (body: unknown, key = DEMO_API_KEY) =>
  request(t.app)
    .post('/sandbox/oauth-clients')
    .set(bearer(key))
    .send(body as object);
const clientCount = async (): Promise<number> =>
  (await docOf(t)).oauthClients.length + (await docOf(t, OTHER_ACCOUNT_ID)).oauthClients.length;

describe('POST /sandbox/oauth-clients', () => {
  it('registers a client and answers 201 with client_id, client_secret and the registration', async () => {
    const res = await register(VALID).expect(201);
    expect(res.body).toEqual({
      client_id: expect.stringMatching(/^[\w-]{20,}$/),
      client_secret: expect.stringMatching(/^[\w-]{40,}$/),
      ...VALID,
      postTokenToRedirectUri: true,
      createdAt: expect.any(String),
    });
  });

  it('records the registering account', async () => {
    const res = await register(VALID).expect(201);
    const record = (await docOf(t)).oauthClients.find((c) => c.clientId === res.body.client_id);
    expect(record?.registration?.accountId).toBe(DEMO_ACCOUNT_ID);
  });

  it('makes a client the login form knows, with its application name', async () => {
    const { client_id } = (await register(VALID).expect(201)).body as { client_id: string };
    const page = await request(t.app)
      .get(loginPath({ clientId: client_id, redirectUri: VALID.redirectUri }))
      .expect(200);
    expect(page.text).toContain('Partner Water App');
  });

  it('makes a client that can complete the flow with its own credentials', async () => {
    const { client_id, client_secret } = (
      await register({ ...VALID, redirectUri: 'myapp.partner:/oauth2redirect' }).expect(201)
    ).body as { client_id: string; client_secret: string };
    const tokens = await loginAndGetToken(t.app, {
      clientId: client_id,
      clientSecret: client_secret,
      redirectUri: 'myapp.partner:/oauth2redirect',
    });
    await request(t.app).get('/v1/locations').set(bearer(tokens.access_token)).expect(200);
  });

  it('can be called with an access token of the account', async () => {
    const tokens = await loginAndGetToken(t.app);
    await register(VALID, tokens.access_token).expect(201);
  });

  it('takes a chosen clientId and clientSecret (sandbox allowance)', async () => {
    const res = await register({ ...VALID, clientId: 'my ci client:1', clientSecret: 'my+ci/secret%value' }).expect(
      201,
    );
    expect(res.body).toMatchObject({ client_id: 'my ci client:1', client_secret: 'my+ci/secret%value' });
  });

  it('refuses a chosen clientId that exists with 409 and stores nothing', async () => {
    const before = await clientCount();
    const res = await register({ ...VALID, clientId: 'demo-client' }).expect(409);
    expect(res.body.error).toBe('client_id_taken');
    expect(await clientCount()).toBe(before);
  });

  it.each([
    ['an https redirect URI with a port and query', 'https://partner.example:8443/cb?app=1'],
    ['a custom scheme of a native app', 'waterapp://oauth/callback'],
    ['a reverse-domain scheme (RFC 8252)', 'com.example.app:/oauth2redirect'],
    ['http on localhost', 'http://localhost:3000/callback'],
    ['http on 127.0.0.1', 'http://127.0.0.1:49152/callback'],
    ['http on [::1]', 'http://[::1]:8080/callback'],
  ])('accepts %s as redirectUri', async (_case, redirectUri) => {
    await register({ ...VALID, redirectUri }).expect(201);
  });

  it.each([
    ['http on loopback', 'http://localhost:3000/signed-out'],
    ['https', 'https://partner.example/bye'],
  ])('accepts %s as signOutUri', async (_case, signOutUri) => {
    await register({ ...VALID, signOutUri }).expect(201);
  });

  it.each([
    [
      'redirectUri',
      'http://partner.example/cb',
      'redirectUri must use https, a custom scheme for a native app (myapp://callback), or http on localhost/127.0.0.1/[::1]',
    ],
    ['redirectUri', 'http://192.168.1.10/cb', 'plain http is accepted only for loopback hosts'],
    ['redirectUri', 'javascript:alert(1)', "is not an app's custom scheme"],
    ['redirectUri', 'data:text/html,hi', "is not an app's custom scheme"],
    ['redirectUri', 'https://partner.example/cb#frag', 'must not contain a #fragment'],
    ['redirectUri', '/relative/callback', 'is not an absolute URI'],
    ['redirectUri', 'https://user:pw@partner.example/cb', 'must not contain a user name or password'],
    ['redirectUri', 42, 'redirectUri must be a string URI'],
    ['signOutUri', 'myapp://signed-out', 'signOutUri must use https, or http on localhost/127.0.0.1/[::1]'],
    ['signOutUri', 'http://partner.example/out', 'signOutUri must use https'],
    ['email', 'not-an-email', 'email must be an e-mail address'],
    ['phone', 'call me', 'phone must be a phone number'],
    ['phone', '12-34', 'phone must be a phone number'],
    ['applicationWebsite', 'ftp://partner.example', 'applicationWebsite must be an absolute http or https URL'],
    ['applicationName', '   ', 'applicationName must not be empty'],
    ['applicationName', 'x'.repeat(101), 'applicationName must be at most 100 characters'],
    ['description', 'x'.repeat(1001), 'description must be at most 1000 characters'],
    ['clientSecret', 'short', 'clientSecret must have at least 8 characters'],
    ['clientId', 'tab\there', 'clientId must be visible ASCII characters'],
    ['postTokenToRedirectUri', 'no', 'postTokenToRedirectUri must be true or false'],
  ])('refuses %s %j with a 400 naming the field and the rule, and stores nothing', async (field, value, rule) => {
    const before = await clientCount();
    const res = await register({ ...VALID, [field]: value }).expect(400);
    expect(res.body).toMatchObject({ error: 'invalid_parameter', parameter: field });
    expect(res.body.message).toContain(rule);
    expect(await clientCount()).toBe(before);
  });

  it.each([
    'name',
    'companyName',
    'email',
    'phone',
    'applicationName',
    'applicationWebsite',
    'description',
    'redirectUri',
    'signOutUri',
  ])('refuses a registration without %s, naming it', async (field) => {
    const { [field]: _omitted, ...body } = VALID as Record<string, unknown>;
    const res = await register(body).expect(400);
    expect(res.body).toMatchObject({ parameter: field, message: `${field} is required` });
  });

  it('lists every problem of the body in problems', async () => {
    const res = await register({ ...VALID, email: 'x', redirectUri: 'http://partner.example/cb' }).expect(400);
    expect(res.body.problems.map((p: { parameter: string }) => p.parameter).sort()).toEqual(['email', 'redirectUri']);
  });

  it('refuses an unknown field, naming it', async () => {
    const res = await register({ ...VALID, redirectUris: ['https://a.example/cb'] }).expect(400);
    expect(res.body.parameter).toBe('redirectUris');
    expect(res.body.message).toContain('Unknown field "redirectUris"');
  });

  it('refuses a body that is not JSON with 415', async () => {
    const res = await request(t.app)
      .post('/sandbox/oauth-clients')
      .set(bearer(DEMO_API_KEY))
      .type('text')
      .send('name=x')
      .expect(415);
    expect(res.body.error).toBe('unsupported_media_type');
  });

  it('refuses a JSON array with 400', async () => {
    const res = await register([VALID]).expect(400);
    expect(res.body.parameter).toBe('body');
  });

  it('requires the account credentials (401 without)', async () => {
    await request(t.app).post('/sandbox/oauth-clients').send(VALID).expect(401);
  });
});

describe('GET /sandbox/oauth-clients', () => {
  it('lists the clients the account registered, and only those', async () => {
    const mine = (await register(VALID).expect(201)).body as { client_id: string };
    await register({ ...VALID, applicationName: 'Other App' }, OTHER_API_KEY).expect(201);
    const res = await request(t.app).get('/sandbox/oauth-clients').set(bearer(DEMO_API_KEY)).expect(200);
    expect(res.body.oauthClients.map((c: { client_id: string }) => c.client_id)).toEqual([mine.client_id]);
  });
});
