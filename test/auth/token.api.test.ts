import request from 'supertest';

import { buildTestApp, changeDoc, docOf, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_CLIENT, DEMO_LOCATIONS, OTHER_LOCATIONS } from '../helpers/demo.js';
import { registerClient } from '../helpers/oauth-clients.js';
import {
  basicAuth,
  codeOf,
  loginAndGetToken,
  NATIVE_REDIRECT_URI,
  type OAuthTokens,
  submitLogin,
} from '../helpers/oauth.js';

const TOKEN_KEYS = ['access_token', 'expires_in', 'refresh_token', 'token_type'];
const DEMO_BASIC = basicAuth(DEMO_CLIENT.clientId, DEMO_CLIENT.clientSecret);

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => {
  await t.deps.dispatcher.idle();
});

const newCode = async (): Promise<string> => codeOf(await submitLogin(request.agent(t.app)));

const tokenRequest = (form: Record<string, string>, authorization: string | null = DEMO_BASIC) => {
  const req = request(t.app).post('/oauth2/token').type('form');
  if (authorization !== null) req.set('Authorization', authorization);
  return req.send(form);
};

const exchange = (code: string, authorization: string | null = DEMO_BASIC, extra: Record<string, string> = {}) =>
  tokenRequest(
    {
      grant_type: 'authorization_code',
      client_id: DEMO_CLIENT.clientId,
      redirect_uri: NATIVE_REDIRECT_URI,
      code,
      ...extra,
    },
    authorization,
  );

const refresh = (refreshToken: string, authorization: string | null = DEMO_BASIC) =>
  tokenRequest(
    { grant_type: 'refresh_token', client_id: DEMO_CLIENT.clientId, refresh_token: refreshToken },
    authorization,
  );

function expectOAuthError(res: request.Response, status: number, error: string): void {
  expect(res.status).toBe(status);
  expect(Object.keys(res.body).sort()).toEqual(['error', 'error_description']);
  expect(res.body.error).toBe(error);
  expect(res.headers['cache-control']).toBe('no-store');
}

describe('grant_type=authorization_code', () => {
  it('answers {access_token, refresh_token, token_type: "Bearer", expires_in} with Cache-Control: no-store', async () => {
    const res = await exchange(await newCode()).expect(200);
    expect(Object.keys(res.body).sort()).toEqual(TOKEN_KEYS);
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(res.body.access_token).toMatch(/^[\w-]{40,}$/);
    expect(res.body.refresh_token).toMatch(/^[\w-]{40,}$/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['pragma']).toBe('no-cache');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('takes expires_in from ACCESS_TOKEN_TTL', async () => {
    t = await buildTestApp({ env: { ACCESS_TOKEN_TTL: '900' } });
    expect((await exchange(await newCode()).expect(200)).body.expires_in).toBe(900);
  });

  it('accepts HTTP Basic without client_id in the body (RFC 6749 section 4.1.3)', async () => {
    const code = await newCode();
    await tokenRequest({ grant_type: 'authorization_code', redirect_uri: NATIVE_REDIRECT_URI, code }).expect(200);
  });

  it('accepts client_id and client_secret in the body instead of HTTP Basic', async () => {
    const code = await newCode();
    await exchange(code, null, { client_secret: DEMO_CLIENT.clientSecret }).expect(200);
  });

  it('accepts a form Content-Type with a charset', async () => {
    const code = await newCode();
    await request(t.app)
      .post('/oauth2/token')
      .set('Authorization', DEMO_BASIC)
      .set('Content-Type', 'application/x-www-form-urlencoded; charset=UTF-8')
      .send(
        new URLSearchParams({ grant_type: 'authorization_code', redirect_uri: NATIVE_REDIRECT_URI, code }).toString(),
      )
      .expect(200);
  });
});

describe('client authentication', () => {
  const SPECIAL_ID = 'partner app:1+%/x?&=y';
  const SPECIAL_SECRET = "se:cret+with %25 & = !*()'";

  it('decodes Basic credentials form-urlencoded before base64 (RFC 6749 section 2.3.1)', async () => {
    const client = await registerClient(t.app, { clientId: SPECIAL_ID, clientSecret: SPECIAL_SECRET });
    const code = codeOf(await submitLogin(request.agent(t.app), { clientId: client.client_id }));
    const res = await exchange(code, basicAuth(client.client_id, client.client_secret), {
      client_id: client.client_id,
    }).expect(200);
    expect(res.body.token_type).toBe('Bearer');
  });

  it('refuses the same credentials sent without the form-encoding step', async () => {
    const client = await registerClient(t.app, { clientId: SPECIAL_ID, clientSecret: SPECIAL_SECRET });
    const code = codeOf(await submitLogin(request.agent(t.app), { clientId: client.client_id }));
    const raw = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
    expectOAuthError(await exchange(code, raw, { client_id: client.client_id }), 401, 'invalid_client');
  });

  it('accepts special characters in body credentials', async () => {
    const client = await registerClient(t.app, { clientId: SPECIAL_ID, clientSecret: SPECIAL_SECRET });
    const code = codeOf(await submitLogin(request.agent(t.app), { clientId: client.client_id }));
    await exchange(code, null, { client_id: client.client_id, client_secret: client.client_secret }).expect(200);
  });

  it.each([
    ['no client authentication', null, {}],
    ['a wrong secret in Basic', basicAuth(DEMO_CLIENT.clientId, 'wrong-secret'), {}],
    ['an unknown client in Basic', basicAuth('no-such-client', 'whatever'), {}],
    ['Basic without ":"', `Basic ${Buffer.from('demo-client').toString('base64')}`, {}],
    ['Basic with a broken %-escape', `Basic ${Buffer.from('demo-client:%zz').toString('base64')}`, {}],
    ['a Bearer header', `Bearer ${DEMO_API_KEY}`, {}],
    ['a wrong client_secret in the body', null, { client_id: DEMO_CLIENT.clientId, client_secret: 'wrong-secret' }],
    ['client_id without client_secret in the body', null, { client_id: DEMO_CLIENT.clientId }],
  ])('answers %s with 401 invalid_client and WWW-Authenticate', async (_case, authorization, extra) => {
    const code = await newCode();
    const res = await tokenRequest(
      { grant_type: 'authorization_code', redirect_uri: NATIVE_REDIRECT_URI, code, ...extra },
      authorization,
    );
    expectOAuthError(res, 401, 'invalid_client');
    expect(res.headers['www-authenticate']).toMatch(/^Basic realm=/);
  });

  it('refuses two authentication methods at once with invalid_request', async () => {
    const res = await exchange(await newCode(), DEMO_BASIC, { client_secret: DEMO_CLIENT.clientSecret });
    expectOAuthError(res, 400, 'invalid_request');
  });

  it('refuses a body client_id that differs from the Basic one with invalid_request', async () => {
    const res = await exchange(await newCode(), DEMO_BASIC, { client_id: 'someone-else' });
    expectOAuthError(res, 400, 'invalid_request');
    expect(res.body.error_description).toContain('client_id');
  });

  it('does not spend the code when client authentication fails', async () => {
    const code = await newCode();
    await exchange(code, basicAuth(DEMO_CLIENT.clientId, 'wrong-secret')).expect(401);
    await exchange(code).expect(200);
  });
});

describe('request errors', () => {
  it('refuses a JSON body with invalid_request', async () => {
    const res = await request(t.app)
      .post('/oauth2/token')
      .set('Authorization', DEMO_BASIC)
      .send({ grant_type: 'authorization_code', code: 'x' });
    expectOAuthError(res, 400, 'invalid_request');
    expect(res.body.error_description).toContain('application/x-www-form-urlencoded');
  });

  it.each([
    ['no grant_type', 'invalid_request', { code: 'x' }],
    ['grant_type=password', 'unsupported_grant_type', { grant_type: 'password', username: 'a', password: 'b' }],
    ['grant_type=client_credentials', 'unsupported_grant_type', { grant_type: 'client_credentials' }],
    ['no code', 'invalid_request', { grant_type: 'authorization_code', redirect_uri: NATIVE_REDIRECT_URI }],
    ['no redirect_uri', 'invalid_request', { grant_type: 'authorization_code', code: 'x' }],
    ['no refresh_token', 'invalid_request', { grant_type: 'refresh_token' }],
  ])('answers %s with 400 %s', async (_case, error, form) => {
    expectOAuthError(await tokenRequest(form), 400, error);
  });

  it('refuses a repeated parameter with invalid_request', async () => {
    const code = await newCode();
    const res = await request(t.app)
      .post('/oauth2/token')
      .set('Authorization', DEMO_BASIC)
      .type('form')
      .send(
        `grant_type=authorization_code&code=${code}&code=${code}&redirect_uri=${encodeURIComponent(NATIVE_REDIRECT_URI)}`,
      );
    expectOAuthError(res, 400, 'invalid_request');
    expect(res.body.error_description).toContain('code must be given once');
  });

  it('answers GET with 405', async () => {
    await request(t.app).get('/oauth2/token').expect(405);
  });
});

describe('invalid_grant for codes', () => {
  it('refuses an unknown code', async () => {
    expectOAuthError(await exchange('no-such-code'), 400, 'invalid_grant');
  });

  it('refuses a code issued to another client, and leaves it usable by its own client', async () => {
    const other = await registerClient(t.app);
    const code = await newCode();
    const res = await exchange(code, basicAuth(other.client_id, other.client_secret), { client_id: other.client_id });
    expectOAuthError(res, 400, 'invalid_grant');
    expect(res.body.error_description).toContain('another client');
    await exchange(code).expect(200);
  });

  it('refuses a redirect_uri that differs from the authorization request', async () => {
    const res = await exchange(await newCode(), DEMO_BASIC, { redirect_uri: DEMO_CLIENT.redirectUri });
    expectOAuthError(res, 400, 'invalid_grant');
  });

  it('refuses an expired code', async () => {
    const code = await newCode();
    t.clock.advance(301_000);
    expectOAuthError(await exchange(code), 400, 'invalid_grant');
  });

  it('refuses a replayed code and revokes the tokens issued from it (RFC 6749 section 4.1.2)', async () => {
    const code = await newCode();
    const tokens = (await exchange(code).expect(200)).body as OAuthTokens;
    const replay = await exchange(code);
    expectOAuthError(replay, 400, 'invalid_grant');
    expect(replay.body.error_description).toContain('already used');
    const api = await request(t.app).get('/v1/locations').set(bearer(tokens.access_token)).expect(403);
    expect(api.body.error).toBe('token_revoked');
    expectOAuthError(await refresh(tokens.refresh_token), 400, 'invalid_grant');
  });
});

describe('grant_type=refresh_token with rotation', () => {
  it('returns a new access token and a new refresh token', async () => {
    const first = await loginAndGetToken(t.app);
    const res = await refresh(first.refresh_token).expect(200);
    expect(Object.keys(res.body).sort()).toEqual(TOKEN_KEYS);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.access_token).not.toBe(first.access_token);
    expect(res.body.refresh_token).not.toBe(first.refresh_token);
    await request(t.app).get('/v1/locations').set(bearer(res.body.access_token)).expect(200);
  });

  it('keeps the previous access token valid until it expires', async () => {
    const first = await loginAndGetToken(t.app);
    await refresh(first.refresh_token).expect(200);
    await request(t.app).get('/v1/locations').set(bearer(first.access_token)).expect(200);
  });

  it('can refresh again with the newest refresh token', async () => {
    const first = await loginAndGetToken(t.app);
    const second = (await refresh(first.refresh_token).expect(200)).body as OAuthTokens;
    const third = (await refresh(second.refresh_token).expect(200)).body as OAuthTokens;
    await request(t.app).get('/v1/locations').set(bearer(third.access_token)).expect(200);
  });

  it('refuses a spent refresh token and revokes every token of the grant', async () => {
    const first = await loginAndGetToken(t.app);
    const second = (await refresh(first.refresh_token).expect(200)).body as OAuthTokens;
    const reuse = await refresh(first.refresh_token);
    expectOAuthError(reuse, 400, 'invalid_grant');
    expect(reuse.body.error_description).toContain('already used');
    for (const accessToken of [first.access_token, second.access_token]) {
      const api = await request(t.app).get('/v1/locations').set(bearer(accessToken)).expect(403);
      expect(api.body.error).toBe('token_revoked');
    }
    expectOAuthError(await refresh(second.refresh_token), 400, 'invalid_grant');
  });

  it('does not touch other grants of the same user when one grant is revoked', async () => {
    const a = await loginAndGetToken(t.app);
    const b = await loginAndGetToken(t.app);
    await refresh(a.refresh_token).expect(200);
    await refresh(a.refresh_token).expect(400);
    await request(t.app).get('/v1/locations').set(bearer(b.access_token)).expect(200);
    await refresh(b.refresh_token).expect(200);
  });

  it('refuses an unknown refresh token', async () => {
    expectOAuthError(await refresh('no-such-refresh-token'), 400, 'invalid_grant');
  });

  it('refuses a refresh token of another client without revoking it', async () => {
    const other = await registerClient(t.app);
    const tokens = await loginAndGetToken(t.app);
    const res = await tokenRequest(
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
      basicAuth(other.client_id, other.client_secret),
    );
    expectOAuthError(res, 400, 'invalid_grant');
    await refresh(tokens.refresh_token).expect(200);
  });

  it('refuses a spent refresh token sent by another client without revoking the grant: that client never held it', async () => {
    const other = await registerClient(t.app);
    const first = await loginAndGetToken(t.app);
    const second = (await refresh(first.refresh_token).expect(200)).body as OAuthTokens;
    const res = await tokenRequest(
      { grant_type: 'refresh_token', refresh_token: first.refresh_token },
      basicAuth(other.client_id, other.client_secret),
    );
    expectOAuthError(res, 400, 'invalid_grant');
    expect(res.body.error_description).toBe('The refresh_token was issued to another client');
    await request(t.app).get('/v1/locations').set(bearer(second.access_token)).expect(200);
    await refresh(second.refresh_token).expect(200);
  });

  it('refuses a refresh token 30 days after it was issued', async () => {
    const tokens = await loginAndGetToken(t.app);
    t.clock.advance(30 * 24 * 3600_000);
    const res = await refresh(tokens.refresh_token);
    expectOAuthError(res, 400, 'invalid_grant');
    expect(res.body.error_description).toContain('expired');
  });

  it('accepts the refresh with client_secret in the body', async () => {
    const tokens = await loginAndGetToken(t.app);
    await tokenRequest(
      {
        grant_type: 'refresh_token',
        client_id: DEMO_CLIENT.clientId,
        client_secret: DEMO_CLIENT.clientSecret,
        refresh_token: tokens.refresh_token,
      },
      null,
    ).expect(200);
  });
});

describe('access tokens on the API', () => {
  it('authorize /v1 for the signed-in user account like its API key', async () => {
    const tokens = await loginAndGetToken(t.app);
    const withToken = await request(t.app).get('/v1/locations').set(bearer(tokens.access_token)).expect(200);
    const withKey = await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(200);
    expect(withToken.body).toEqual(withKey.body);
    expect(withToken.body.locations.map((l: { locationId: string }) => l.locationId)).toEqual(
      DEMO_LOCATIONS.map((l) => l.locationId),
    );
  });

  it('give another user the locations of that user account only', async () => {
    const tokens = await loginAndGetToken(t.app, { email: 'other@example.com', password: 'other-password' });
    const res = await request(t.app).get('/v1/locations').set(bearer(tokens.access_token)).expect(200);
    expect(res.body.locations.map((l: { locationId: string }) => l.locationId)).toEqual(
      OTHER_LOCATIONS.map((l) => l.locationId),
    );
  });

  it('authorize /sandbox for the account', async () => {
    const tokens = await loginAndGetToken(t.app);
    await request(t.app).get('/sandbox/oauth-clients').set(bearer(tokens.access_token)).expect(200);
  });

  it('answer 403 token_expired once expires_in has passed', async () => {
    const tokens = await loginAndGetToken(t.app);
    t.clock.advance((tokens.expires_in - 1) * 1000);
    await request(t.app).get('/v1/locations').set(bearer(tokens.access_token)).expect(200);
    t.clock.advance(1000);
    const res = await request(t.app).get('/v1/locations').set(bearer(tokens.access_token)).expect(403);
    expect(res.body.error).toBe('token_expired');
  });

  it('expire on the account clock, not the process clock', async () => {
    const tokens = await loginAndGetToken(t.app);
    await changeDoc(t, (d) => {
      d.clock = { offsetMs: tokens.expires_in * 1000, frozenAtMs: null };
    });
    const res = await request(t.app).get('/v1/locations').set(bearer(tokens.access_token)).expect(403);
    expect(res.body.error).toBe('token_expired');
  });

  it('answer 403 after a refresh token replay revoked them', async () => {
    const tokens = await loginAndGetToken(t.app);
    await refresh(tokens.refresh_token).expect(200);
    await refresh(tokens.refresh_token).expect(400);
    const res = await request(t.app)
      .get(`/v1/locations/${DEMO_LOCATIONS[0]!.locationId}`)
      .set(bearer(tokens.access_token))
      .expect(403);
    expect(res.body.error).toBe('token_revoked');
  });
});

describe('store hygiene', () => {
  it('forgets codes and tokens a day after they died, on the next write', async () => {
    const tokens = await loginAndGetToken(t.app);
    await newCode();
    t.clock.advance(31 * 24 * 3600_000);
    await newCode();
    const d = await docOf(t);
    const left = {
      codes: d.authorizationCodes.length,
      access: d.accessTokens.some((x) => x.accessToken === tokens.access_token),
      refresh: d.refreshTokens.some((x) => x.refreshToken === tokens.refresh_token),
    };
    expect(left).toEqual({ codes: 1, access: false, refresh: false });
  });
});
