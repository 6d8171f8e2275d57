import request from 'supertest';

import { sweepIdleAccounts } from '../../src/accounts/index.js';
import { ENDED_ALERTS_KEPT_PER_LOCATION } from '../../src/alerts/service.js';
import { LAST_REQUEST_RESOLUTION_MS } from '../../src/store/store.js';
import { buildTestApp, docOf, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_ACCOUNT_ID, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';
import { basicAuth, loginAndGetToken, partnerRegistration, submitLogin } from '../helpers/oauth.js';

const TTL_SECONDS = 3600;
let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp({ env: { ACCOUNT_TTL: String(TTL_SECONDS) } });
});

interface CreatedAccount {
  accountId: string;
  apiKey: string;
  user: { email: string; password: string };
  locations: { locationId: string }[];
}

async function createAccount(): Promise<CreatedAccount> {
  const res = await request(t.app).post('/sandbox/accounts').send({ locations: 1 }).expect(201);
  return res.body as CreatedAccount;
}

describe('ACCOUNT_TTL', () => {
  it('deletes a generated account idle for longer than ACCOUNT_TTL, with its keys, and keeps the fixture accounts', async () => {
    const { accountId, apiKey } = await createAccount();
    t.clock.advance(TTL_SECONDS * 1000 + LAST_REQUEST_RESOLUTION_MS + 1);
    expect(await sweepIdleAccounts(t.deps)).toBe(1);
    await request(t.app).get('/v1/locations').set(bearer(apiKey)).expect(403);
    expect(await t.store.accounts.get(accountId)).toBeNull();
    expect(await t.store.accounts.lookup('apiKey', apiKey)).toBeNull();
    await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(200);
  });

  it('counts from the last request, not from the creation', async () => {
    const { apiKey } = await createAccount();
    t.clock.advance(TTL_SECONDS * 1000 - 60_000);
    await request(t.app).get('/v1/locations').set(bearer(apiKey)).expect(200);
    t.clock.advance(120_000);
    expect(await sweepIdleAccounts(t.deps)).toBe(0);
    await request(t.app).get('/v1/locations').set(bearer(apiKey)).expect(200);
  });

  it('with ACCOUNT_TTL=0 never deletes an account', async () => {
    t = await buildTestApp({ env: { ACCOUNT_TTL: '0' } });
    const { apiKey } = await createAccount();
    t.clock.advance(10 * 365 * 24 * 3600_000);
    expect(await sweepIdleAccounts(t.deps)).toBe(0);
    await request(t.app).get('/v1/locations').set(bearer(apiKey)).expect(200);
  });
});

/** What the sandbox answers a credential: everything a client can tell it by. */
async function answerTo(
  method: 'get' | 'post',
  path: string,
  credential: string,
): Promise<{ status: number; body: unknown; challenge: unknown }> {
  const res = await request(t.app)[method](path).set(bearer(credential)).send();
  return { status: res.status, body: res.body as unknown, challenge: res.headers['www-authenticate'] };
}

describe('ACCOUNT_TTL, to the second', () => {
  const SHORT_TTL_MS = 3000;
  const NEVER_ISSUED = 'never_issued_api_key_for_the_water_monitoring_sandbox_00';
  beforeEach(async () => {
    t = await buildTestApp({ env: { ACCOUNT_TTL: String(SHORT_TTL_MS / 1000) } });
  });

  it('a generated account idle for longer answers its next request exactly as a key that never existed (the sweep has not run)', async () => {
    const account = await createAccount();
    await request(t.app).get('/v1/locations').set(bearer(account.apiKey)).expect(200);
    t.clock.advance(7000);
    for (const [method, path] of [
      ['get', '/v1/locations'],
      ['get', `/v1/locations/${account.locations[0]!.locationId}`],
      ['get', '/sandbox/clock'],
      ['post', '/sandbox/reset'],
    ] as const) {
      const unknown = await answerTo(method, path, NEVER_ISSUED);
      expect(unknown.status).toBe(403);
      expect(await answerTo(method, path, account.apiKey)).toEqual(unknown);
    }
    // Not deleted yet: only treated as deleted.
    expect(await t.store.accounts.lookup('apiKey', account.apiKey)).toBe(account.accountId);
  });

  it('lives on while it is used, and ends between its lifetime and a second after its last request', async () => {
    const { apiKey } = await createAccount();
    for (let i = 0; i < 5; i++) {
      t.clock.advance(2500);
      await request(t.app).get('/v1/locations').set(bearer(apiKey)).expect(200);
    }
    t.clock.advance(SHORT_TTL_MS);
    await request(t.app).get('/v1/locations').set(bearer(apiKey)).expect(200);
    t.clock.advance(SHORT_TTL_MS + LAST_REQUEST_RESOLUTION_MS + 1);
    await request(t.app).get('/v1/locations').set(bearer(apiKey)).expect(403);
  });

  it('takes its access tokens, refresh tokens, users and OAuth clients with it', async () => {
    const account = await createAccount();
    const tokens = await loginAndGetToken(t.app, { email: account.user.email, password: account.user.password });
    const client = (
      await request(t.app)
        .post('/sandbox/oauth-clients')
        .set(bearer(account.apiKey))
        .send(partnerRegistration({ redirectUri: 'https://partner.example/callback' }))
        .expect(201)
    ).body as { client_id: string; client_secret: string };
    await request(t.app).get('/v1/locations').set(bearer(tokens.access_token)).expect(200);
    t.clock.advance(7000);

    expect(await answerTo('get', '/v1/locations', tokens.access_token)).toEqual(
      await answerTo('get', '/v1/locations', NEVER_ISSUED),
    );
    const refresh = (token: string): request.Test =>
      request(t.app)
        .post('/oauth2/token')
        .set('Authorization', basicAuth('demo-client', 'demo-client-secret'))
        .type('form')
        .send({ grant_type: 'refresh_token', refresh_token: token });
    const refused = await refresh(tokens.refresh_token);
    expect({ status: refused.status, body: refused.body as unknown }).toEqual({
      status: (await refresh('never-issued-refresh-token')).status,
      body: (await refresh('never-issued-refresh-token')).body as unknown,
    });
    expect(refused.status).toBe(400);

    const signIn = async (email: string, password: string): Promise<{ status: number; error: string | undefined }> => {
      const res = await submitLogin(request.agent(t.app), { email, password });
      return { status: res.status, error: /id="login-error"[^>]*>([^<]*)</.exec(res.text)?.[1] };
    };
    const asUnknownUser = await signIn('nobody-here@example.com', account.user.password);
    expect(asUnknownUser).toEqual({ status: 422, error: expect.stringContaining('not correct') as unknown });
    expect(await signIn(account.user.email, account.user.password)).toEqual(asUnknownUser);

    const clientLogin = await request(t.app).get(
      `/login?response_type=code&client_id=${encodeURIComponent(client.client_id)}&redirect_uri=${encodeURIComponent('https://partner.example/callback')}`,
    );
    const unknownClientLogin = await request(t.app).get(
      `/login?response_type=code&client_id=never-issued-client&redirect_uri=${encodeURIComponent('https://partner.example/callback')}`,
    );
    expect(clientLogin.status).toBe(unknownClientLogin.status);
    expect(clientLogin.status).toBe(400);
  });

  it('is then reclaimed by the sweep, on the same rule', async () => {
    const { accountId, apiKey } = await createAccount();
    t.clock.advance(SHORT_TTL_MS + LAST_REQUEST_RESOLUTION_MS);
    expect(await sweepIdleAccounts(t.deps)).toBe(0);
    t.clock.advance(1);
    expect(await sweepIdleAccounts(t.deps)).toBe(1);
    expect(await t.store.accounts.lookup('apiKey', apiKey)).toBeNull();
    expect(await t.store.accounts.get(accountId)).toBeNull();
  });

  it('never ends a fixture account', async () => {
    t.clock.advance(10 * 365 * 24 * 3600_000);
    await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(200);
    expect(await sweepIdleAccounts(t.deps)).toBe(0);
  });

  it('leaves an account past its lifetime out of the admin list', async () => {
    const { accountId } = await createAccount();
    const listed = async (): Promise<string[]> =>
      (
        (await request(t.app).get('/sandbox/admin/accounts').expect(200)).body as { accounts: { accountId: string }[] }
      ).accounts.map((a) => a.accountId);
    expect(await listed()).toContain(accountId);
    t.clock.advance(7000);
    expect(await listed()).not.toContain(accountId);
    expect(await listed()).toContain(DEMO_ACCOUNT_ID);
  });
});

describe("a location's alert history", () => {
  it(`keeps the active alerts and the newest ${ENDED_ALERTS_KEPT_PER_LOCATION} ended ones`, async () => {
    for (let i = 0; i < ENDED_ALERTS_KEPT_PER_LOCATION + 10; i++) {
      const started = await request(t.app)
        .post(`/sandbox/locations/${DEMO_LOCATION_ID}/alerts`)
        .set(bearer(DEMO_API_KEY))
        .send({ type: 'humidity' })
        .expect(201);
      await request(t.app)
        .post(`/sandbox/locations/${DEMO_LOCATION_ID}/alerts/${started.body.alertId as string}/end`)
        .set(bearer(DEMO_API_KEY))
        .expect(200);
    }
    const active = await request(t.app)
      .post(`/sandbox/locations/${DEMO_LOCATION_ID}/alerts`)
      .set(bearer(DEMO_API_KEY))
      .send({ type: 'lowLeak' })
      .expect(201);
    const alerts = (await docOf(t, DEMO_ACCOUNT_ID)).alerts.filter((a) => a.locationId === DEMO_LOCATION_ID);
    expect(alerts.filter((a) => !a.active)).toHaveLength(ENDED_ALERTS_KEPT_PER_LOCATION);
    expect(alerts.filter((a) => a.active).map((a) => a.alertId)).toEqual([active.body.alertId]);
  });
});
