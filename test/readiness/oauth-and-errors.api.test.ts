import request from 'supertest';

import { buildTestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_CLIENT, DEMO_LOCATION_ID } from '../helpers/demo.js';
import { injectFault } from '../helpers/faults.js';
import { basicAuth, codeOf, loginAndGetToken, NATIVE_REDIRECT_URI, submitLogin } from '../helpers/oauth.js';
import { useTestApp } from '../helpers/use-test-app.js';
import { checkOf, drill, expectCheck, get, wait } from './support.js';

/**
 * The OAuth and error-handling checks of the readiness report, each shown passed, failed and
 * pending through real requests. The test app's clock is the process clock: a client that
 * waits is a test that moves it.
 */

const t = useTestApp();

const LOCATIONS = '/v1/locations';

function exchange(code: string, options: { redirectUri?: string; secret?: string } = {}): request.Test {
  return request(t.app)
    .post('/oauth2/token')
    .set('Authorization', basicAuth(DEMO_CLIENT.clientId, options.secret ?? DEMO_CLIENT.clientSecret))
    .type('form')
    .send({ grant_type: 'authorization_code', code, redirect_uri: options.redirectUri ?? NATIVE_REDIRECT_URI });
}

async function freshCode(): Promise<string> {
  return codeOf(await submitLogin(request.agent(t.app)));
}

function refresh(refreshToken: string): request.Test {
  return request(t.app)
    .post('/oauth2/token')
    .set('Authorization', basicAuth(DEMO_CLIENT.clientId, DEMO_CLIENT.clientSecret))
    .type('form')
    .send({ grant_type: 'refresh_token', refresh_token: refreshToken });
}

describe('oauth.token-exchange', () => {
  it('passes once a code was exchanged and its access token used on /v1, naming both requests', async () => {
    const tokens = await loginAndGetToken(t.app);
    await get(t, LOCATIONS, tokens.access_token).expect(200);
    const check = await checkOf(t, 'oauth.token-exchange');
    expect(check).toMatchObject({
      status: 'passed',
      required: true,
      fix: null,
      docs: 'docs/readiness.md#oauthtoken-exchange',
    });
    expect(check.evidence.map((e) => [e.request, e.status])).toEqual([
      ['POST /oauth2/token', 200],
      ['GET /v1/locations', 200],
    ]);
  });

  it('fails when the client exchanged codes with the wrong redirect_uri or secret and none succeeded after, with the error the client got', async () => {
    await exchange(await freshCode(), { redirectUri: 'http://localhost:3000/callback' }).expect(400);
    await exchange(await freshCode(), { secret: 'not-the-secret' }).expect(401);
    const check = await checkOf(t, 'oauth.token-exchange');
    expect(check.status).toBe('failed');
    expect(check.evidence).toHaveLength(2);
    expect(check.evidence[0]).toMatchObject({
      request: 'POST /oauth2/token',
      status: 400,
      detail: expect.stringContaining('invalid_grant: redirect_uri must be exactly'),
    });
    expect(check.evidence[1]).toMatchObject({
      request: 'POST /oauth2/token',
      status: 401,
      detail: expect.stringContaining('invalid_client'),
    });
    expect(check.fix).toMatch(/redirect_uri/);
  });

  it('a reused code fails it, and a later exchange that succeeds and is used passes it again', async () => {
    const code = await freshCode();
    await exchange(code).expect(200);
    await exchange(code).expect(400);
    expect((await checkOf(t, 'oauth.token-exchange')).status).toBe('failed');
    const tokens = (await exchange(await freshCode()).expect(200)).body as { access_token: string };
    await get(t, LOCATIONS, tokens.access_token).expect(200);
    expect((await checkOf(t, 'oauth.token-exchange')).status).toBe('passed');
  });

  it('is pending while the exchanged token has not been used, and not applicable to an integration that uses only its API key', async () => {
    await get(t, LOCATIONS).expect(200);
    expect((await checkOf(t, 'oauth.token-exchange')).status).toBe('not_applicable');
    expect((await checkOf(t, 'oauth.refresh')).status).toBe('not_applicable');
    await exchange(await freshCode()).expect(200);
    const check = await checkOf(t, 'oauth.token-exchange');
    expect(check.status).toBe('pending');
    expect(check.fix).toMatch(/call \/v1 with the access token/);
  });
});

describe('oauth.refresh', () => {
  it('passes when, after a 403 for the expired token, the client refreshed and used the new token', async () => {
    const tokens = await loginAndGetToken(t.app);
    await get(t, LOCATIONS, tokens.access_token).expect(200);
    await drill(t, 'expire-tokens').expect(200);
    await get(t, LOCATIONS, tokens.access_token).expect(403);
    const refreshed = (await refresh(tokens.refresh_token).expect(200)).body as { access_token: string };
    await get(t, LOCATIONS, refreshed.access_token).expect(200);
    const check = await checkOf(t, 'oauth.refresh');
    expect(check.status).toBe('passed');
    expect(check.evidence.map((e) => [e.request, e.status])).toEqual([
      ['GET /v1/locations', 403],
      ['POST /oauth2/token', 200],
      ['GET /v1/locations', 200],
    ]);
  });

  it('fails when the expired token is sent a third time, naming those requests', async () => {
    const tokens = await loginAndGetToken(t.app);
    await drill(t, 'expire-tokens').expect(200);
    for (let i = 0; i < 3; i++) await get(t, `/v1/locations/${DEMO_LOCATION_ID}`, tokens.access_token).expect(403);
    const check = await checkOf(t, 'oauth.refresh');
    expect(check.status).toBe('failed');
    expect(check.evidence).toHaveLength(3);
    expect(check.evidence[2]).toMatchObject({
      request: `GET /v1/locations/${DEMO_LOCATION_ID}`,
      status: 403,
      detail: expect.stringContaining('request 3 with it'),
    });
  });

  it('is pending while no token has expired, and while a refreshed token has not been used', async () => {
    const tokens = await loginAndGetToken(t.app);
    await get(t, LOCATIONS, tokens.access_token).expect(200);
    expect((await checkOf(t, 'oauth.refresh')).status).toBe('pending');
    await drill(t, 'expire-tokens').expect(200);
    await get(t, LOCATIONS, tokens.access_token).expect(403);
    await refresh(tokens.refresh_token).expect(200);
    await expectCheck(t, 'oauth.refresh', 'pending', { status: 403 });
  });
});

describe('errors.rate-limit', () => {
  it('passes when each request after a 429 waited its Retry-After', async () => {
    await drill(t, 'rate-limit').expect(200);
    for (let i = 0; i < 3; i++) {
      const res = await get(t, LOCATIONS).expect(429);
      expect(res.headers['retry-after']).toBe('2');
      wait(t, 2000);
    }
    await get(t, LOCATIONS).expect(200);
    const check = await checkOf(t, 'errors.rate-limit');
    expect(check.status).toBe('passed');
    expect(check.evidence[0]).toMatchObject({ status: 429, detail: 'answered 429 with Retry-After: 2' });
  });

  it('fails when a request came before Retry-After had passed, naming it and the 429', async () => {
    await drill(t, 'rate-limit').expect(200);
    const limited = await get(t, LOCATIONS).expect(429);
    wait(t, 500);
    await get(t, LOCATIONS).expect(429);
    const check = await checkOf(t, 'errors.rate-limit');
    expect(check.status).toBe('failed');
    expect(check.evidence).toHaveLength(1);
    expect(check.evidence[0]!.detail).toMatch(/^sent 0\.\d+ s after the 429 of \S+, whose Retry-After asked for 2 s$/);
    expect(limited.status).toBe(429);
  });

  it("is pending until a 429 was followed by a request, and the sandbox's own controls in between do not count", async () => {
    expect((await checkOf(t, 'errors.rate-limit')).status).toBe('pending');
    await drill(t, 'rate-limit').expect(200);
    await get(t, LOCATIONS).expect(429);
    // The report and the journal are /sandbox calls: not the integration's traffic.
    await get(t, '/sandbox/requests').expect(200);
    await expectCheck(t, 'errors.rate-limit', 'pending', { status: 429 });
  });
});

describe('errors.server-errors', () => {
  it('passes when retries after 503s waited 1 s, then longer each time', async () => {
    await drill(t, 'server-errors').expect(200);
    for (const waitMs of [1000, 2000, 4000]) {
      await get(t, LOCATIONS).expect(503);
      wait(t, waitMs);
    }
    await get(t, LOCATIONS).expect(200);
    const check = await checkOf(t, 'errors.server-errors');
    expect(check.status).toBe('passed');
    expect(check.evidence.map((e) => e.status)).toEqual([503, 503]);
  });

  it('fails on a retry within 1 s of a 5xx', async () => {
    await drill(t, 'server-errors').expect(200);
    await get(t, LOCATIONS).expect(503);
    wait(t, 200);
    await get(t, LOCATIONS).expect(503);
    const check = await checkOf(t, 'errors.server-errors');
    expect(check.status).toBe('failed');
    expect(check.evidence[0]!.detail).toMatch(/^sent 0\.\d+ s \(under 1 s\) after the 503 answer of /);
  });

  it('fails when the waits do not grow, and when more than 5 retries fall in a minute', async () => {
    await drill(t, 'server-errors').expect(200);
    await get(t, LOCATIONS).expect(503);
    wait(t, 1500);
    await get(t, LOCATIONS).expect(503);
    wait(t, 1500);
    await get(t, LOCATIONS).expect(503);
    const flat = await checkOf(t, 'errors.server-errors');
    expect(flat.status).toBe('failed');
    expect(flat.evidence[0]!.detail).toMatch(/no longer than the wait before it/);

    const other = await buildTestApp();
    await injectFault(other, { status: 500, times: 10 }).expect(201);
    for (let i = 1; i <= 7; i++) {
      await request(other.app).get(LOCATIONS).set(bearer(DEMO_API_KEY)).expect(500);
      other.clock.advance(1000 + i * 10);
    }
    const crowded = (await request(other.app).get('/sandbox/readiness').set(bearer(DEMO_API_KEY)).expect(200)).body as {
      checks: { id: string; status: string; evidence: { detail: string }[] }[];
    };
    const check = crowded.checks.find((c) => c.id === 'errors.server-errors')!;
    expect(check.status).toBe('failed');
    expect(check.evidence[0]!.detail).toMatch(/^retry 6 within a minute \(at most 5\)/);
  });

  it('is pending while no 5xx was answered, or none was followed by a request yet', async () => {
    await get(t, LOCATIONS).expect(200);
    expect((await checkOf(t, 'errors.server-errors')).status).toBe('pending');
    await drill(t, 'server-errors').expect(200);
    await get(t, LOCATIONS).expect(503);
    const check = await checkOf(t, 'errors.server-errors');
    expect(check).toMatchObject({ status: 'pending', fix: expect.stringContaining('server-errors drill') });
  });
});
