import request from 'supertest';

import { DEAD_KEPT, RETENTION_MS } from '../../src/auth/tokens.js';
import { DASHBOARD_CLIENT_ID } from '../../src/dashboard/access.js';
import type { PageConfig as DashboardConfig } from '../../src/dashboard/page-config.js';
import { buildTestApp, changeDoc, docOf, sessionsOf, TEST_START, type TestApp } from '../helpers/build-test-app.js';
import {
  bearer,
  DEMO_ACCOUNT_ID,
  DEMO_API_KEY,
  DEMO_LOCATION_ID,
  DEMO_LOCATIONS,
  DEMO_USER,
  OTHER_ACCOUNT_ID,
  OTHER_LOCATION_ID,
} from '../helpers/demo.js';
import { csrfTokenOf, unescapeHtml } from '../helpers/html.js';
import { loginAndGetToken, loginPath, submitLogin } from '../helpers/oauth.js';

type Agent = ReturnType<typeof request.agent>;

const HOSTILE = '<script>alert(1)</script>';
const HOSTILE_ATTRIBUTE = '"><img src=x onerror=alert(2)>';

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});

function configOf(html: string): DashboardConfig {
  const match = /data-config="([^"]*)"/.exec(html);
  if (!match) throw new Error(`no data-config in:\n${html}`);
  return JSON.parse(unescapeHtml(match[1]!)) as DashboardConfig;
}

async function signIn(
  agent: Agent,
  credentials: { email: string; password: string } = DEMO_USER,
): Promise<request.Response> {
  const form = await agent.get('/').expect(200);
  return agent
    .post('/dashboard/sign-in')
    .type('form')
    .send({ csrf_token: csrfTokenOf(form.text), ...credentials });
}

/** Signs in the demo user and returns the agent and the dashboard page. */
async function openDashboard(): Promise<{ agent: Agent; page: request.Response; config: DashboardConfig }> {
  const agent = request.agent(t.app);
  await signIn(agent).then((res) => expect(res.status).toBe(303));
  const page = await agent.get('/').expect(200);
  return { agent, page, config: configOf(page.text) };
}

const namesOf = async (accountId: string): Promise<string[]> =>
  (await docOf(t, accountId)).locations.map((l) => l.name);
const dashboardTokens = async () => (await docOf(t)).accessTokens.filter((x) => x.clientId === DASHBOARD_CLIENT_ID);
const signedInSessions = async () => Object.values(await sessionsOf(t)).filter((s) => s['userId'] !== undefined);

describe('GET / without a signed-in session', () => {
  it('shows the sign-in form and nothing of any account', async () => {
    const res = await request(t.app).get('/').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('action="/dashboard/sign-in"');
    expect(res.text).toContain('name="password"');
    for (const name of [
      ...(await namesOf(DEMO_ACCOUNT_ID)),
      ...(await namesOf(OTHER_ACCOUNT_ID)),
      'Demo Household',
      'Other Household',
      DEMO_LOCATION_ID,
    ]) {
      expect(res.text).not.toContain(name);
    }
    expect(res.text).not.toContain('data-config');
    expect(await dashboardTokens()).toEqual([]);
  });
});

describe('POST /dashboard/sign-in', () => {
  it.each([
    ['a wrong password', { email: DEMO_USER.email, password: 'not-the-password' }],
    ['an unknown e-mail', { email: 'nobody@example.com', password: DEMO_USER.password }],
  ])('with %s answers 422 with the form and an error, and signs nobody in', async (_case, credentials) => {
    const agent = request.agent(t.app);
    const res = await signIn(agent, credentials);
    expect(res.status).toBe(422);
    expect(res.text).toContain('id="login-error"');
    expect(res.text).toContain('not correct');
    expect(res.text).toContain(`value="${credentials.email}"`);
    const again = await agent.get('/').expect(200);
    expect(again.text).toContain('name="password"');
    expect(await signedInSessions()).toEqual([]);
  });

  it("without the form's CSRF token answers 403 and signs nobody in", async () => {
    const agent = request.agent(t.app);
    await agent.get('/').expect(200);
    const res = await agent.post('/dashboard/sign-in').type('form').send(DEMO_USER).expect(403);
    expect(res.text).toContain('not sent from a current sign-in page');
    expect((await agent.get('/')).text).toContain('name="password"');
  });

  it('with the right password redirects 303 to /, which then shows the dashboard', async () => {
    const agent = request.agent(t.app);
    const res = await signIn(agent);
    expect(res.status).toBe(303);
    expect(res.headers['location']).toBe('/');
    const page = await agent.get('/').expect(200);
    expect(page.text).toContain('id="dashboard"');
    expect(page.text).not.toContain('name="password"');
  });

  it('accepts the e-mail in another case, as the login form of the authorization host does', async () => {
    const res = await signIn(request.agent(t.app), {
      email: DEMO_USER.email.toUpperCase(),
      password: DEMO_USER.password,
    });
    expect(res.status).toBe(303);
  });
});

describe('the signed-in dashboard', () => {
  it("lists the account's locations, and only them", async () => {
    const { page, config } = await openDashboard();
    expect(page.text).toContain('Demo Household');
    for (const name of await namesOf(DEMO_ACCOUNT_ID)) expect(page.text).toContain(name);
    for (const name of [...(await namesOf(OTHER_ACCOUNT_ID)), 'Other Household', OTHER_LOCATION_ID])
      expect(page.text).not.toContain(name);
    expect(config.locations.map((l) => l.locationId)).toEqual(DEMO_LOCATIONS.map((l) => l.locationId));
    expect(config.locations.map((l) => l.timeZone)).toEqual(DEMO_LOCATIONS.map((l) => l.timeZone));
  });

  it('embeds an access token of the signed-in account that works on /v1 and /sandbox', async () => {
    const { config } = await openDashboard();
    const locations = await request(t.app).get('/v1/locations').set(bearer(config.accessToken)).expect(200);
    expect(locations.body.locations.map((l: { locationId: string }) => l.locationId)).toEqual(
      DEMO_LOCATIONS.map((l) => l.locationId),
    );
    await request(t.app).get(`/v1/locations/${OTHER_LOCATION_ID}`).set(bearer(config.accessToken)).expect(404);
    await request(t.app).get('/sandbox/clock').set(bearer(config.accessToken)).expect(200);

    const doc = await docOf(t);
    const demoUserId = doc.users.find((u) => u.email === DEMO_USER.email)!.userId;
    const record = doc.accessTokens.find((x) => x.accessToken === config.accessToken);
    expect(record).toMatchObject({
      clientId: DASHBOARD_CLIENT_ID,
      accountId: DEMO_ACCOUNT_ID,
      userId: demoUserId,
      revokedAt: null,
    });
    const expected = new Date(t.clock.now().getTime() + t.deps.config.accessTokenTtlSeconds * 1000).toISOString();
    expect(record?.expiresAt).toBe(expected);
    expect(config.tokenExpiresAt).toBe(expected);
    expect(config.tokenExpiresIn).toBe(t.deps.config.accessTokenTtlSeconds);
  });

  it('reuses a fresh token on reload, and issues a new one once half its lifetime of real time has passed', async () => {
    const { agent, config } = await openDashboard();
    const ttl = t.deps.config.accessTokenTtlSeconds;
    expect(configOf((await agent.get('/')).text).accessToken).toBe(config.accessToken);
    expect(await dashboardTokens()).toHaveLength(1);

    t.clock.advance(ttl * 0.6 * 1000);
    const fresh = configOf((await agent.get('/')).text);
    expect(fresh.accessToken).not.toBe(config.accessToken);
    expect(fresh.tokenExpiresIn).toBe(ttl);
    await request(t.app).get('/v1/locations').set(bearer(config.accessToken)).expect(200);

    t.clock.advance(ttl * 0.4 * 1000);
    const refused = await request(t.app).get('/v1/locations').set(bearer(config.accessToken)).expect(403);
    expect(refused.body.error).toBe('token_expired');
    await request(t.app).get('/v1/locations').set(bearer(fresh.accessToken)).expect(200);
  });

  it("keeps the page's token working whatever the account clock does, while a partner's OAuth token expires on it", async () => {
    const { agent, config } = await openDashboard();
    const partner = await loginAndGetToken(t.app);
    const page = bearer(config.accessToken);
    const moveClock = (body: object) => request(t.app).post('/sandbox/clock').set(page).send(body).expect(200);

    for (const advanceSeconds of [3600, 86_400, 7 * 86_400]) {
      await moveClock({ advanceSeconds });
      await request(t.app).get('/v1/locations').set(page).expect(200);
    }
    const refused = await request(t.app).get('/v1/locations').set(bearer(partner.access_token)).expect(403);
    expect(refused.body.error).toBe('token_expired');
    // A partner's sign-in prunes the grants on the account clock, eight days ahead: not the page's token.
    await loginAndGetToken(t.app);
    await request(t.app).get('/sandbox/clock').set(page).expect(200);

    // Back: a day behind real time, then real time again.
    await moveClock({ now: new Date(TEST_START.getTime() - 86_400_000).toISOString() });
    await request(t.app).get('/v1/locations').set(page).expect(200);
    await moveClock({ realTime: true });
    await request(t.app).get('/v1/locations').set(page).expect(200);
    expect(configOf((await agent.get('/')).text).accessToken).toBe(config.accessToken);
    expect(await dashboardTokens()).toHaveLength(1);
  });

  it("expires the page's token on POST /sandbox/tokens/expire at real time's now, even with the account clock a week ahead", async () => {
    const { config } = await openDashboard();
    await request(t.app)
      .post('/sandbox/clock')
      .set(bearer(DEMO_API_KEY))
      .send({ advanceSeconds: 7 * 86_400 })
      .expect(200);
    await request(t.app).post('/sandbox/tokens/expire').set(bearer(DEMO_API_KEY)).send({}).expect(200);
    const refused = await request(t.app).get('/v1/locations').set(bearer(config.accessToken)).expect(403);
    expect(refused.body.error).toBe('token_expired');
    const record = (await dashboardTokens()).find((x) => x.accessToken === config.accessToken);
    expect(record?.expiresAt).toBe(t.clock.now().toISOString());
  });

  it("keeps the page's tokens bounded: dead ones go a day after they died on real time, and at most the newest 100 are kept", async () => {
    // A minute's lifetime: more than DEAD_KEPT tokens die within a day.
    t = await buildTestApp({ env: { ACCESS_TOKEN_TTL: '60' } });
    const { agent } = await openDashboard();
    const ttlMs = 60_000;
    for (let i = 0; i < DEAD_KEPT + 10; i++) {
      t.clock.advance(ttlMs);
      await agent.get('/').expect(200);
    }
    const tokens = await dashboardTokens();
    expect(tokens).toHaveLength(DEAD_KEPT + 1);
    // Within the login session's day: each visit replaces the expired token and prunes.
    for (let i = 0; i < 2; i++) {
      t.clock.advance(RETENTION_MS / 2 + ttlMs);
      await agent.get('/').expect(200);
    }
    // The live one, and the one that died within the last day.
    expect(await dashboardTokens()).toHaveLength(2);
  });
  it('escapes hostile text in the account and location names', async () => {
    await changeDoc(t, (d) => {
      d.locations.find((l) => l.locationId === DEMO_LOCATION_ID)!.name = HOSTILE;
      d.account.name = HOSTILE_ATTRIBUTE;
    });
    const { page, config } = await openDashboard();
    expect(page.text).not.toContain(HOSTILE);
    expect(page.text).not.toContain('<img');
    expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.text.match(/<script/g)).toHaveLength(1);
    expect(config.locations[0]!.name).toBe(HOSTILE);
  });

  it("runs no inline script or style: its CSP allows only its own origin's assets, and it is never cached", async () => {
    const { page } = await openDashboard();
    const csp = page.headers['content-security-policy'] as string;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-inline|nonce-/);
    expect(page.text).toMatch(/<script src="\/dashboard\/assets\/app\.[A-Z0-9]+\.js" defer><\/script>/);
    expect(page.text).toMatch(/<link rel="stylesheet" href="\/dashboard\/assets\/app\.[A-Z0-9]+\.css">/);
    expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(page.text).not.toMatch(/<style|\sstyle=/);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['x-frame-options']).toBe('DENY');
  });

  it('keeps the nonce policy on the sign-in form, which has one inline style and no script', async () => {
    const res = await request(t.app).get('/').expect(200);
    const csp = res.headers['content-security-policy'] as string;
    const nonce = /style-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeDefined();
    expect(csp).not.toContain('script-src');
    expect(res.text).toContain(`<style nonce="${nonce!}">`);
    expect(res.text).not.toContain('<script');
  });
});

describe('POST /dashboard/sign-out', () => {
  it("ends the session and revokes the page's token", async () => {
    const { agent, page, config } = await openDashboard();
    const res = await agent
      .post('/dashboard/sign-out')
      .type('form')
      .send({ csrf_token: csrfTokenOf(page.text) })
      .expect(303);
    expect(res.headers['location']).toBe('/');
    expect((await agent.get('/')).text).toContain('name="password"');
    const refused = await request(t.app).get('/v1/locations').set(bearer(config.accessToken)).expect(403);
    expect(refused.body.error).toBe('token_revoked');
    expect(await signedInSessions()).toEqual([]);
  });

  it("without the page's CSRF token answers 403 and keeps the session", async () => {
    const { agent } = await openDashboard();
    await agent.post('/dashboard/sign-out').type('form').send({}).expect(403);
    expect((await agent.get('/')).text).toContain('id="dashboard"');
  });
});

describe('the login session shared with the authorization host', () => {
  it('signs the browser in on the dashboard after a sign-in on /login', async () => {
    const agent = request.agent(t.app);
    expect((await submitLogin(agent)).status).toBe(302);
    expect((await agent.get('/').expect(200)).text).toContain('id="dashboard"');
  });

  it('lets /login skip its form after a sign-in on the dashboard', async () => {
    const { agent } = await openDashboard();
    const res = await agent.get(loginPath()).expect(302);
    expect(res.headers['location']).toMatch(/^waterapp:\/\/callback\?code=/);
  });

  it('shows the sign-in form when the signed-in user no longer exists', async () => {
    const { agent } = await openDashboard();
    await changeDoc(t, (d) => {
      d.users = d.users.filter((u) => u.email !== DEMO_USER.email);
    });
    expect((await agent.get('/').expect(200)).text).toContain('name="password"');
  });
});

describe('routing', () => {
  it('answers other methods on / with 405 and sends a stray GET of the sign-in address to /', async () => {
    const res = await request(t.app).post('/').expect(405);
    expect(res.headers['allow']).toBe('GET, HEAD');
    await request(t.app).get('/dashboard/sign-in').expect(303).expect('Location', '/');
  });
});
