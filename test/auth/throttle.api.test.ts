import request from 'supertest';

import {
  FAILED_LOGINS_PER_ACCOUNT,
  FAILED_LOGINS_PER_ADDRESS,
  FAILED_TOKEN_REQUESTS_PER_ADDRESS,
  LOGIN_WINDOW_MS,
} from '../../src/auth/throttle.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { expectAtMostChecked } from '../helpers/bursts.js';
import { DEMO_CLIENT, DEMO_USER } from '../helpers/demo.js';
import { refreshRequest } from '../helpers/oauth-clients.js';
import { basicAuth, codeOf, formFields, loginAndGetToken, loginPath } from '../helpers/oauth.js';

let t: TestApp;
beforeEach(async () => {
  // Start on a window boundary, so each window's length is exact.
  t = await buildTestApp({
    start: new Date(Math.ceil(Date.parse('2026-03-10T15:30:00Z') / LOGIN_WINDOW_MS) * LOGIN_WINDOW_MS),
  });
});

type SubmitForm = (password: string, email?: string) => request.Test;

/** The login form opened from `address` (the sandbox trusts X-Forwarded-For from a loopback proxy) by a browser of its own: what submits it. */
async function openForm(address: string): Promise<SubmitForm> {
  const agent = request.agent(t.app);
  const page = await agent.get(loginPath()).set('X-Forwarded-For', address).expect(200);
  return (password, email = DEMO_USER.email) =>
    agent
      .post('/login')
      .set('X-Forwarded-For', address)
      .type('form')
      .send({ ...formFields(page.text), email, password });
}

/** One sign-in attempt from `address`. */
const signIn = async (password: string, address: string, email?: string): Promise<request.Response> =>
  (await openForm(address))(password, email);

/** Wrong passwords of the demo user sent at once, a browser for each address: every form opened first, then every POST together. Their statuses. */
async function wrongPasswordsAtOnce(addresses: string[]): Promise<number[]> {
  const forms = await Promise.all(addresses.map(openForm));
  const answers = await Promise.all(forms.map((submit) => submit('wrong')));
  return answers.map((a) => a.status);
}

describe('failed sign-ins on the login form', () => {
  it(`are limited per client address: after ${FAILED_LOGINS_PER_ADDRESS}, even the right password gets the form with 429 and Retry-After`, async () => {
    for (let i = 0; i < FAILED_LOGINS_PER_ADDRESS; i++) expect((await signIn('wrong', '203.0.113.5')).status).toBe(422);
    const blocked = await signIn(DEMO_USER.password, '203.0.113.5');
    expect(blocked.status).toBe(429);
    expect(blocked.headers['retry-after']).toBe(String(LOGIN_WINDOW_MS / 1000));
    expect(blocked.text).toContain('Too many failed sign-ins from this address');
    expect(blocked.text).toContain('name="password"');
    // Another address signs in as the same user.
    expect((await signIn(DEMO_USER.password, '198.51.100.7')).status).toBe(302);
  });

  it(`are limited per account across addresses, and the demo user is free again when the window ends`, async () => {
    for (let i = 0; i < FAILED_LOGINS_PER_ACCOUNT; i++) await signIn('wrong', `192.0.2.${i}`);
    const blocked = await signIn(DEMO_USER.password, '198.51.100.9');
    expect(blocked.status).toBe(429);
    expect(blocked.text).toContain('for this account');
    t.clock.advance(LOGIN_WINDOW_MS);
    expect((await signIn(DEMO_USER.password, '198.51.100.9')).status).toBe(302);
  });

  it(`hold under parallel attempts: of ${3 * FAILED_LOGINS_PER_ADDRESS} wrong passwords sent at once from one address, at most ${FAILED_LOGINS_PER_ADDRESS} are checked`, async () => {
    const statuses = await wrongPasswordsAtOnce(
      Array.from({ length: 3 * FAILED_LOGINS_PER_ADDRESS }, () => '203.0.113.20'),
    );
    expectAtMostChecked(FAILED_LOGINS_PER_ADDRESS, statuses, 422);
  });

  it(`hold under parallel attempts per account: from many addresses at once, at most ${FAILED_LOGINS_PER_ACCOUNT} wrong passwords of one user are checked`, async () => {
    const statuses = await wrongPasswordsAtOnce(
      Array.from({ length: 2 * FAILED_LOGINS_PER_ACCOUNT }, (_, i) => `192.0.2.${i + 1}`),
    );
    expectAtMostChecked(FAILED_LOGINS_PER_ACCOUNT, statuses, 422);
  });

  it('take back the count of a right password: after 9 failures and two sign-ins the tenth failure is still checked, and only then the limit holds', async () => {
    for (let i = 0; i < FAILED_LOGINS_PER_ADDRESS - 1; i++)
      expect((await signIn('wrong', '203.0.113.30')).status).toBe(422);
    expect((await signIn(DEMO_USER.password, '203.0.113.30')).status).toBe(302);
    expect((await signIn(DEMO_USER.password, '203.0.113.30')).status).toBe(302);
    expect((await signIn('wrong', '203.0.113.30')).status).toBe(422);
    expect((await signIn(DEMO_USER.password, '203.0.113.30')).status).toBe(429);
  });

  it('count only failures: a partner signing in again and again is never limited', async () => {
    for (let i = 0; i < FAILED_LOGINS_PER_ADDRESS + 5; i++)
      expect((await signIn(DEMO_USER.password, '203.0.113.8')).status).toBe(302);
  });
});

describe('failed token requests', () => {
  it(`hold under parallel guesses: of ${2 * FAILED_TOKEN_REQUESTS_PER_ADDRESS} unknown codes sent at once from one address, at most ${FAILED_TOKEN_REQUESTS_PER_ADDRESS} are checked`, async () => {
    const answers = await Promise.all(
      Array.from({ length: 2 * FAILED_TOKEN_REQUESTS_PER_ADDRESS }, (_, i) =>
        request(t.app)
          .post('/oauth2/token')
          .set('X-Forwarded-For', '203.0.113.40')
          .set('Authorization', basicAuth(DEMO_CLIENT.clientId, DEMO_CLIENT.clientSecret))
          .type('form')
          .send({ grant_type: 'authorization_code', code: `guess-${i}`, redirect_uri: 'waterapp://callback' }),
      ),
    );
    expectAtMostChecked(
      FAILED_TOKEN_REQUESTS_PER_ADDRESS,
      answers.map((a) => a.status),
      400,
    );
  });

  it('count only guesses: a client exchanging and refreshing again and again is never limited', async () => {
    let tokens = await loginAndGetToken(t.app);
    for (let i = 0; i < FAILED_TOKEN_REQUESTS_PER_ADDRESS + 5; i++) {
      const res = await refreshRequest(t.app, tokens.refresh_token).expect(200);
      tokens = res.body as typeof tokens;
    }
  });

  const token = (form: Record<string, string>, address: string) =>
    request(t.app)
      .post('/oauth2/token')
      .set('X-Forwarded-For', address)
      .set('Authorization', basicAuth(DEMO_CLIENT.clientId, DEMO_CLIENT.clientSecret))
      .type('form')
      .send(form);

  it(`are limited per client address with an RFC 6749 429 and Retry-After, and a valid code is refused until the window ends`, async () => {
    for (let i = 0; i < FAILED_TOKEN_REQUESTS_PER_ADDRESS; i++) {
      await token(
        { grant_type: 'authorization_code', code: `guess-${i}`, redirect_uri: 'waterapp://callback' },
        '203.0.113.9',
      ).expect(400);
    }
    const agent = request.agent(t.app);
    const page = await agent.get(loginPath()).expect(200);
    const code = codeOf(
      await agent
        .post('/login')
        .type('form')
        .send({ ...formFields(page.text), ...DEMO_USER }),
    );
    const refused = await token(
      { grant_type: 'authorization_code', code, redirect_uri: 'waterapp://callback' },
      '203.0.113.9',
    ).expect(429);
    expect(refused.body).toEqual({
      error: 'temporarily_unavailable',
      error_description: expect.stringContaining('Too many failed token requests'),
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    t.clock.advance(LOGIN_WINDOW_MS);
    await token({ grant_type: 'authorization_code', code, redirect_uri: 'waterapp://callback' }, '203.0.113.9').expect(
      200,
    );
  });
});
