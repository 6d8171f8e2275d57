import request from 'supertest';

import { buildTestApp, docOf, sessionsOf, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_CLIENT, DEMO_USER } from '../helpers/demo.js';
import { registerClient } from '../helpers/oauth-clients.js';
import { basicAuth, codeOf, formFields, loginPath, NATIVE_REDIRECT_URI, submitLogin } from '../helpers/oauth.js';

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => {
  await t.deps.dispatcher.idle();
});

const exchange = (code: string, redirectUri = NATIVE_REDIRECT_URI) =>
  request(t.app)
    .post('/oauth2/token')
    .set('Authorization', basicAuth(DEMO_CLIENT.clientId, DEMO_CLIENT.clientSecret))
    .type('form')
    .send({ grant_type: 'authorization_code', client_id: DEMO_CLIENT.clientId, redirect_uri: redirectUri, code });

/** An HTML error page: status 400 (or as given), no redirect, the message in the page. */
function expectErrorPage(res: request.Response, text: string, status = 400): void {
  expect(res.status).toBe(status);
  expect(res.headers['location']).toBeUndefined();
  expect(res.headers['content-type']).toMatch(/^text\/html/);
  expect(res.text).toContain(text);
}

describe('GET /login', () => {
  it('shows an HTML form with e-mail and password fields, the application name and the request in hidden fields', async () => {
    const res = await request(t.app)
      .get(loginPath({ state: 'xyz' }))
      .expect(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.text).toContain('<strong id="application-name">Demo Water App</strong>');
    expect(res.text).toMatch(/<input type="email" id="email" name="email"/);
    expect(res.text).toMatch(/<input type="password" id="password" name="password"/);
    expect(formFields(res.text)).toEqual({
      response_type: 'code',
      client_id: DEMO_CLIENT.clientId,
      redirect_uri: NATIVE_REDIRECT_URI,
      state: 'xyz',
      csrf_token: expect.stringMatching(/^[\w-]{20,}$/),
    });
  });

  it("stores no session for a visitor: it sets only the form's CSRF cookie, HttpOnly and SameSite=Lax, and not Secure over plain http", async () => {
    const res = await request(t.app).get(loginPath()).expect(200);
    const cookies = res.headers['set-cookie'] as unknown as string[];
    expect(cookies).toEqual([expect.stringMatching(/^water_sandbox_csrf=[\w-]+; Path=\/; HttpOnly; SameSite=Lax$/)]);
    expect(await sessionsOf(t)).toEqual({});
  });

  it('sets the session cookie at sign-in: HttpOnly, SameSite=Lax, Path=/, and not Secure over plain http', async () => {
    const res = await submitLogin(request.agent(t.app));
    expect(res.status).toBe(302);
    const cookie = (res.headers['set-cookie'] as unknown as string[]).find((c) =>
      c.startsWith('water_sandbox_session='),
    );
    expect(cookie).toMatch(/; Path=\/; Expires=[^;]+; HttpOnly; SameSite=Lax$/);
    expect(Object.keys(await sessionsOf(t))).toHaveLength(1);
  });

  it.each([
    ['an unknown client_id', loginPath({ clientId: 'no-such-client' }), 'No application is registered with client_id'],
    ['no client_id', '/login?response_type=code&redirect_uri=waterapp%3A%2F%2Fcallback', 'client_id is missing'],
    [
      'a redirect_uri not registered for the client',
      loginPath({ redirectUri: 'https://evil.example/cb' }),
      'is not registered for Demo Water App',
    ],
    [
      'a registered redirect_uri with a different path',
      loginPath({ redirectUri: 'http://localhost:3000/callback/other' }),
      'is not registered',
    ],
    ['no redirect_uri', '/login?response_type=code&client_id=demo-client', 'redirect_uri is missing'],
    ['response_type=token', loginPath({ responseType: 'token' }), 'response_type must be'],
    ['no response_type', '/login?client_id=demo-client&redirect_uri=waterapp%3A%2F%2Fcallback', 'it is missing'],
    ['client_id given twice', `${loginPath()}&client_id=demo-client`, 'client_id must be given once'],
  ])('answers %s with a 400 error page and never redirects', async (_case, path, text) => {
    expectErrorPage(await request(t.app).get(path), text);
  });
});

describe('signing in with the form', () => {
  it('redirects (302) to the redirect URI with a code and the state', async () => {
    const res = await submitLogin(request.agent(t.app), {
      redirectUri: DEMO_CLIENT.redirectUri,
      state: 'opaque state/with spaces&more',
    });
    expect(res.status).toBe(302);
    const location = new URL(res.headers['location'] as string);
    expect(`${location.origin}${location.pathname}`).toBe(DEMO_CLIENT.redirectUri);
    expect(location.searchParams.get('code')).toMatch(/^[\w-]{40,}$/);
    expect(location.searchParams.get('state')).toBe('opaque state/with spaces&more');
  });

  it('redirects to a custom-scheme redirect URI of a native app', async () => {
    const res = await submitLogin(request.agent(t.app));
    expect(res.headers['location']).toMatch(/^waterapp:\/\/callback\?code=[\w-]+$/);
  });

  it('accepts the e-mail address in any letter case', async () => {
    const res = await submitLogin(request.agent(t.app), { email: ' Demo@Example.COM ' });
    expect(res.status).toBe(302);
  });

  it.each([
    ['a wrong password', { password: 'not-the-password' }, 'The e-mail address or the password is not correct.'],
    ['an unknown e-mail', { email: 'nobody@example.com' }, 'The e-mail address or the password is not correct.'],
    ['an empty password', { password: '' }, 'Enter your e-mail address and your password.'],
  ])('with %s, shows the form again with an error and does not redirect', async (_case, credentials, message) => {
    const res = await submitLogin(request.agent(t.app), { ...credentials, state: 's1' });
    expect(res.status).toBe(422);
    expect(res.headers['location']).toBeUndefined();
    expect(res.text).toContain(`<div class="error" role="alert" id="login-error">${message}</div>`);
    expect(formFields(res.text)).toMatchObject({ client_id: DEMO_CLIENT.clientId, state: 's1' });
    expect((await docOf(t)).authorizationCodes).toHaveLength(0);
  });

  it('keeps the typed e-mail in the form after a failed attempt', async () => {
    const res = await submitLogin(request.agent(t.app), { password: 'wrong-password' });
    expect(res.text).toContain(`value="${DEMO_USER.email}"`);
  });

  it('can sign in after a failed attempt with the re-rendered form', async () => {
    const agent = request.agent(t.app);
    const failed = await submitLogin(agent, { password: 'wrong-password' });
    const res = await agent
      .post('/login')
      .type('form')
      .send({ ...formFields(failed.text), ...DEMO_USER });
    expect(codeOf(res)).toBeTruthy();
  });

  it('gives the session a new id at each sign-in (no session fixation), and the one before is gone', async () => {
    const agent = request.agent(t.app);
    const form = await submitLogin(agent, { password: 'wrong' });
    const sessionCookie = (res: request.Response): string | undefined =>
      (res.headers['set-cookie'] as unknown as string[] | undefined)
        ?.find((c) => c.startsWith('water_sandbox_session='))
        ?.split(';')[0];
    const signInFromForm = async (): Promise<string | undefined> =>
      sessionCookie(
        await agent
          .post('/login')
          .type('form')
          .send({ ...formFields(form.text), ...DEMO_USER })
          .expect(302),
      );
    const first = await signInFromForm();
    // The form of before the sign-in is still this browser's (its CSRF cookie): signing in again from it.
    const second = await signInFromForm();
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    expect(Object.keys(await sessionsOf(t))).toHaveLength(1);
  });
});

describe('CSRF protection of the form', () => {
  it('refuses a POST without the session cookie with a 403 page and no redirect', async () => {
    const page = await request(t.app).get(loginPath());
    const res = await request(t.app)
      .post('/login')
      .type('form')
      .send({ ...formFields(page.text), ...DEMO_USER });
    expectErrorPage(res, 'open the sign-in page again', 403);
    expect(res.text).toContain(
      'href="/login?response_type=code&amp;client_id=demo-client&amp;redirect_uri=waterapp%3A%2F%2Fcallback"',
    );
  });

  type Fields = Record<string, string>;
  it.each<[string, (fields: Fields) => Fields, string, number]>([
    [
      'a POST whose csrf_token is not the session one',
      (fields) => ({ ...fields, csrf_token: 'forged-token-forged-token' }),
      'Sign-in form expired',
      403,
    ],
    ['a POST without csrf_token', ({ csrf_token: _dropped, ...fields }) => fields, 'Sign-in form expired', 403],
    [
      'a form whose hidden fields were changed to an unregistered redirect URI',
      (fields) => ({ ...fields, redirect_uri: 'https://evil.example/cb' }),
      'is not registered',
      400,
    ],
  ])('refuses %s', async (_case, changed, text, status) => {
    const agent = request.agent(t.app);
    const page = await agent.get(loginPath());
    const res = await agent
      .post('/login')
      .type('form')
      .send({ ...changed(formFields(page.text)), ...DEMO_USER });
    expectErrorPage(res, text, status);
  });
});

describe('a browser that is already signed in', () => {
  it('gets the redirect with a fresh code without typing again', async () => {
    const agent = request.agent(t.app);
    const first = codeOf(await submitLogin(agent));
    const again = await agent.get(loginPath({ state: 'second' })).expect(302);
    const location = new URL(again.headers['location'] as string);
    expect(location.searchParams.get('code')).not.toBe(first);
    expect(location.searchParams.get('state')).toBe('second');
  });

  it('still gets an error page for a bad request, never a redirect', async () => {
    const agent = request.agent(t.app);
    await submitLogin(agent);
    expectErrorPage(await agent.get(loginPath({ redirectUri: 'https://evil.example/cb' })), 'is not registered');
  });
});

describe('the authorization code', () => {
  it('is single-use', async () => {
    const code = codeOf(await submitLogin(request.agent(t.app)));
    await exchange(code).expect(200);
    const again = await exchange(code).expect(400);
    expect(again.body.error).toBe('invalid_grant');
  });

  it('expires after AUTHORIZATION_CODE_TTL seconds on the account clock', async () => {
    t = await buildTestApp({ env: { AUTHORIZATION_CODE_TTL: '120' } });
    const code = codeOf(await submitLogin(request.agent(t.app)));
    t.clock.advance(120_000);
    const res = await exchange(code).expect(400);
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: expect.stringContaining('expired') });
  });

  it('is still valid just before it expires', async () => {
    const code = codeOf(await submitLogin(request.agent(t.app)));
    t.clock.advance(299_000);
    await exchange(code).expect(200);
  });

  it('is bound to the redirect URI it was issued for', async () => {
    const code = codeOf(await submitLogin(request.agent(t.app)));
    const res = await exchange(code, DEMO_CLIENT.redirectUri).expect(400);
    expect(res.body.error).toBe('invalid_grant');
    expect(res.body.error_description).toContain('redirect_uri');
  });
});

describe('GET /logout', () => {
  const logoutPath = (clientId: string, logoutUri: string): string =>
    `/logout?${new URLSearchParams({ client_id: clientId, logout_uri: logoutUri }).toString()}`;

  it('ends the login session and redirects to the registered sign-out URI', async () => {
    const agent = request.agent(t.app);
    await submitLogin(agent);
    const res = await agent.get(logoutPath(DEMO_CLIENT.clientId, 'http://localhost:3000/signed-out')).expect(302);
    expect(res.headers['location']).toBe('http://localhost:3000/signed-out');
    expect(await sessionsOf(t)).toEqual({});
    const page = await agent.get(loginPath()).expect(200);
    expect(page.text).toContain('name="password"');
  });

  it('leaves tokens issued before valid (sign-out ends the browser session only)', async () => {
    const agent = request.agent(t.app);
    const tokens = (await exchange(codeOf(await submitLogin(agent))).expect(200)).body as { access_token: string };
    await agent.get(logoutPath(DEMO_CLIENT.clientId, 'http://localhost:3000/signed-out')).expect(302);
    await request(t.app).get('/v1/locations').set(bearer(tokens.access_token)).expect(200);
  });

  it('redirects even when no session exists', async () => {
    const res = await request(t.app)
      .get(logoutPath(DEMO_CLIENT.clientId, 'https://localhost:3000/signed-out'))
      .expect(302);
    expect(res.headers['location']).toBe('https://localhost:3000/signed-out');
  });

  it.each([
    [
      'an unregistered logout_uri',
      logoutPath(DEMO_CLIENT.clientId, 'https://evil.example/out'),
      'is not registered for Demo Water App',
    ],
    [
      'a redirect URI used as logout_uri',
      logoutPath(DEMO_CLIENT.clientId, DEMO_CLIENT.redirectUri),
      'is not registered',
    ],
    [
      'an unknown client_id',
      logoutPath('no-such-client', 'http://localhost:3000/signed-out'),
      'No application is registered',
    ],
    ['no logout_uri', '/logout?client_id=demo-client', 'logout_uri is missing'],
    ['no client_id', '/logout?logout_uri=http%3A%2F%2Flocalhost%3A3000%2Fsigned-out', 'client_id is missing'],
    [
      'logout_uri given twice',
      `${logoutPath(DEMO_CLIENT.clientId, 'http://localhost:3000/signed-out')}&logout_uri=x`,
      'must be given once',
    ],
  ])('answers %s with a 400 error page, no redirect, and keeps the session', async (_case, path, text) => {
    const agent = request.agent(t.app);
    await submitLogin(agent);
    expectErrorPage(await agent.get(path), text);
    await agent.get(loginPath()).expect(302);
  });
});

describe('escaping in the pages', () => {
  const HOSTILE = `<script>alert("x")</script> & 'co' \`tick\``;
  const ESCAPED = '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39; &#96;tick&#96;';

  /** The login page of a client whose name is HOSTILE, asked to return to `redirectUri`: its HTML, answered with `status`. */
  async function hostileClientsPage(redirectUri: string, status: number): Promise<string> {
    const { client_id: clientId } = await registerClient(t.app, {
      name: 'Mallory',
      companyName: 'Evil Corp',
      email: 'mallory@example.com',
      phone: '+1 555 0100 200',
      applicationName: HOSTILE,
      applicationWebsite: 'https://evil.example',
      description: 'Tries to inject markup',
      redirectUri: 'https://evil.example/cb?x="><script>alert(1)</script>',
      signOutUri: 'https://evil.example/out',
    });
    return (await request(t.app).get(loginPath({ clientId, redirectUri })).expect(status)).text;
  }

  it('escapes a hostile application name on the login form', async () => {
    const page = await hostileClientsPage('https://evil.example/cb?x="><script>alert(1)</script>', 200);
    expect(page).not.toContain('<script>');
    expect(page).toContain(`<strong id="application-name">${ESCAPED}</strong>`);
    expect(page).toContain(`<title>Sign in - ${ESCAPED}</title>`);
    expect(page).toContain('value="https://evil.example/cb?x=&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
  });

  it('escapes a hostile application name on an error page', async () => {
    const page = await hostileClientsPage('https://other.example/', 400);
    expect(page).not.toContain('<script>');
    expect(page).toContain(ESCAPED);
  });

  it('escapes a hostile state in the hidden field', async () => {
    const res = await request(t.app)
      .get(loginPath({ state: '"><script>alert(1)</script>' }))
      .expect(200);
    expect(res.text).not.toContain('<script>');
    expect(res.text).toContain('name="state" value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
  });

  it.each([
    ['client_id', loginPath({ clientId: '<img src=x onerror=alert(1)>' })],
    ['redirect_uri', loginPath({ redirectUri: '"><img src=x onerror=alert(1)>' })],
    ['response_type', loginPath({ responseType: '<img src=x onerror=alert(1)>' })],
    ['logout_uri', `/logout?client_id=demo-client&logout_uri=${encodeURIComponent('"><img src=x onerror=alert(1)>')}`],
  ])('escapes a hostile %s echoed on the error page', async (_param, path) => {
    const res = await request(t.app).get(path).expect(400);
    expect(res.text).not.toContain('<img');
    expect(res.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('escapes a hostile e-mail echoed after a failed sign-in', async () => {
    const res = await submitLogin(request.agent(t.app), {
      email: '"><script>alert(1)</script>',
      password: 'whatever-password',
    });
    expect(res.status).toBe(422);
    expect(res.text).not.toContain('<script>');
    expect(res.text).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
  });
});

describe('methods', () => {
  it.each([
    ['PUT', '/login', 'GET, POST, HEAD'],
    ['PUT', '/logout', 'GET, POST, HEAD'],
    ['GET', '/oauth2/revoke', 'POST'],
  ])('answers %s %s with 405 and Allow', async (method, path, allow) => {
    const res = await request(t.app)[method.toLowerCase() as 'put' | 'get'](path).expect(405);
    expect(res.headers['allow']).toBe(allow);
  });
});
