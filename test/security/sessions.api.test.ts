import type { DestinationStream } from 'pino';
import request from 'supertest';

import { createLogger } from '../../src/core/logger.js';
import { buildTestApp, sessionsOf, type TestApp } from '../helpers/build-test-app.js';
import { DEMO_USER } from '../helpers/demo.js';
import { formFields, loginPath } from '../helpers/oauth.js';
import { fillPath, givenRouteIds, OTHER_ROUTES, routeName } from '../http/route-table.js';

// Visitors cost nothing: a browser that has not signed in is given no session, stored or sent,
// on any page; the forms are protected against CSRF all the same. Behind https (PUBLIC_URL),
// every cookie is __Host- and Secure.

const setCookies = (res: request.Response): string[] =>
  (res.headers['set-cookie'] as unknown as string[] | undefined) ?? [];

describe('a visitor who has not signed in', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });

  it.each(OTHER_ROUTES.map((route) => [routeName(route), route] as const))(
    'is given no session by %s',
    async (_name, route) => {
      const path =
        route.path === '/login'
          ? loginPath()
          : route.path === '/logout'
            ? '/logout?client_id=demo-client&logout_uri=http%3A%2F%2Flocalhost%3A3000%2Fsigned-out'
            : fillPath(route.path, await givenRouteIds(t.app));
      const res = await request(t.app)[route.method](path).type('form').send({});
      expect(setCookies(res).filter((c) => c.includes('session'))).toEqual([]);
      expect(await sessionsOf(t)).toEqual({});
    },
  );

  it('stores nothing over many visits of GET / and GET /login, each page with a working form', async () => {
    for (let i = 0; i < 50; i++) {
      const res = await request(t.app)
        .get(i % 2 ? '/' : loginPath())
        .expect(200);
      expect(setCookies(res)).toEqual([expect.stringMatching(/^water_sandbox_csrf=/)]);
    }
    expect(await sessionsOf(t)).toEqual({});
  });

  it("still cannot post a form without its own CSRF cookie and token: another browser's pair, or a token alone, is refused", async () => {
    const mine = await request(t.app).get(loginPath()).expect(200);
    const theirs = await request(t.app).get(loginPath()).expect(200);
    const cookieOf = (res: request.Response): string => setCookies(res)[0]!.split(';')[0]!;
    /** The sign-in form of `page` sent with the CSRF cookie of `cookieFrom` (none when not given). */
    const signIn = (page: request.Response, cookieFrom?: request.Response): request.Test =>
      request(t.app)
        .post('/login')
        .set(cookieFrom ? { Cookie: cookieOf(cookieFrom) } : {})
        .type('form')
        .send({ ...formFields(page.text), ...DEMO_USER });
    // Their token with my cookie: refused.
    await signIn(theirs, mine).expect(403);
    // A token without its cookie: refused.
    await signIn(mine).expect(403);
    // A /login token on the dashboard's form: refused (a token is bound to its form).
    await request(t.app)
      .post('/dashboard/sign-in')
      .set('Cookie', cookieOf(mine))
      .type('form')
      .send({ csrf_token: formFields(mine.text)['csrf_token'], ...DEMO_USER })
      .expect(403);
    expect(await sessionsOf(t)).toEqual({});
    // The pair of one page: signed in.
    await signIn(mine, mine).expect(302);
    expect(Object.keys(await sessionsOf(t))).toHaveLength(1);
  });
});

describe('cookies', () => {
  const signIn = async (
    t: TestApp,
    headers: Record<string, string>,
  ): Promise<{ form: request.Response; signedIn: request.Response }> => {
    const form = await request(t.app).get(loginPath()).set(headers).expect(200);
    const csrfCookie = setCookies(form)[0]!.split(';')[0]!;
    const signedIn = await request(t.app)
      .post('/login')
      .set(headers)
      .set('Cookie', csrfCookie)
      .type('form')
      .send({ ...formFields(form.text), ...DEMO_USER })
      .expect(302);
    return { form, signedIn };
  };

  it('behind an https PUBLIC_URL are named __Host-, Secure, Path=/ and carry no Domain', async () => {
    const t = await buildTestApp({ env: { PUBLIC_URL: 'https://sandbox.example.com' } });
    // The proxy in front terminates TLS and says so (the sandbox trusts it on loopback and private networks).
    const { form, signedIn } = await signIn(t, { 'X-Forwarded-Proto': 'https' });
    expect(setCookies(form)).toEqual([
      expect.stringMatching(/^__Host-water_sandbox_csrf=[\w-]+; Path=\/; HttpOnly; Secure; SameSite=Lax$/),
    ]);
    expect(setCookies(signedIn)).toEqual([
      expect.stringMatching(
        /^__Host-water_sandbox_session=[^;]+; Path=\/; Expires=[^;]+; HttpOnly; Secure; SameSite=Lax$/,
      ),
    ]);
    for (const cookie of [...setCookies(form), ...setCookies(signedIn)]) expect(cookie).not.toMatch(/Domain=/i);
    // The session cookie works under its name; sign-out clears it with the same attributes.
    const session = setCookies(signedIn)[0]!.split(';')[0]!;
    const back = await request(t.app)
      .get(loginPath())
      .set('X-Forwarded-Proto', 'https')
      .set('Cookie', session)
      .expect(302);
    expect(back.headers['location']).toMatch(/code=/);
    const out = await request(t.app)
      .get('/logout?client_id=demo-client&logout_uri=http%3A%2F%2Flocalhost%3A3000%2Fsigned-out')
      .set('X-Forwarded-Proto', 'https')
      .set('Cookie', session)
      .expect(302);
    expect(setCookies(out)).toEqual([
      expect.stringMatching(
        /^__Host-water_sandbox_session=; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Lax$/,
      ),
    ]);
  });

  it('over plain http (a local sandbox) have plain names and no Secure', async () => {
    const t = await buildTestApp({ env: { PUBLIC_URL: 'http://localhost:8080' } });
    const { form, signedIn } = await signIn(t, {});
    expect(setCookies(form)).toEqual([
      expect.stringMatching(/^water_sandbox_csrf=[\w-]+; Path=\/; HttpOnly; SameSite=Lax$/),
    ]);
    expect(setCookies(signedIn)).toEqual([
      expect.stringMatching(/^water_sandbox_session=[^;]+; Path=\/; Expires=[^;]+; HttpOnly; SameSite=Lax$/),
    ]);
  });

  it('behind https, a sign-in that reaches the sandbox as plain http gets no session cookie, and the log says why', async () => {
    const lines: string[] = [];
    const destination: DestinationStream = { write: (line: string) => void lines.push(line) };
    const t = await buildTestApp({
      env: { PUBLIC_URL: 'https://sandbox.example.com' },
      logger: createLogger('warn', destination),
    });
    const { signedIn } = await signIn(t, {});
    expect(setCookies(signedIn)).toEqual([]);
    expect(lines.map((l) => JSON.parse(l) as { msg: string })).toEqual([
      expect.objectContaining({ msg: expect.stringContaining('X-Forwarded-Proto: https') }),
    ]);
  });
});
