import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import request from 'supertest';

import { SESSION_TTL_MS } from '../../src/auth/session.js';
import { buildTestApp, sessionsOf } from '../helpers/build-test-app.js';
import { DEMO_USER } from '../helpers/demo.js';
import { formFields, loginPath } from '../helpers/oauth.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'oauth-session-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Signs in on `app` and returns the session cookie ("name=value"). */
async function signIn(app: Parameters<typeof request>[0]): Promise<string> {
  const page = await request(app).get(loginPath());
  const cookie = (page.headers['set-cookie'] as unknown as string[])[0]!.split(';')[0]!;
  const res = await request(app)
    .post('/login')
    .set('Cookie', cookie)
    .type('form')
    .send({ ...formFields(page.text), ...DEMO_USER })
    .expect(302);
  return (res.headers['set-cookie'] as unknown as string[])[0]!.split(';')[0]!;
}

describe('login sessions', () => {
  it('survive a restart on the same DATA_DIR: the browser is still signed in', async () => {
    const env = { DATA_DIR: join(dir, 'state') };
    const first = await buildTestApp({ env });
    const cookie = await signIn(first.app);
    await first.store.flush();

    const restarted = await buildTestApp({ env });
    const res = await request(restarted.app).get(loginPath()).set('Cookie', cookie).expect(302);
    expect(res.headers['location']).toMatch(/^waterapp:\/\/callback\?code=/);
  });

  it('keep the cookie-signing secret in the store', async () => {
    const t = await buildTestApp();
    await request(t.app).get(loginPath()).expect(200);
    expect(await t.store.settings.get('sessionSecret')).toMatch(/^[\w-]{40,}$/);
  });

  it('outlive a global reset: the fixture users keep their ids, so the browser stays signed in', async () => {
    const t = await buildTestApp();
    const cookie = await signIn(t.app);
    await request(t.app).post('/sandbox/admin/reset').expect(200);
    const res = await request(t.app).get(loginPath()).set('Cookie', cookie).expect(302);
    expect(res.headers['location']).toMatch(/^waterapp:\/\/callback\?code=/);
  });

  // On Redis (npm run test:redis runs this file there too) a session ends by a real-time TTL, not on the process clock.
  (process.env['TEST_REDIS_URL'] ? it.skip : it)(
    'end a day after they were last used (process clock), and their files go with the next sign-in',
    async () => {
      const t = await buildTestApp({ env: { DATA_DIR: join(dir, 'state') } });
      const cookie = await signIn(t.app);
      const sid = decodeURIComponent(cookie.split('=')[1]!)
        .replace(/^s:/, '')
        .replace(/\.[^.]*$/, '');
      await t.store.flush();
      expect(readdirSync(join(dir, 'state', 'sessions'))).toEqual([`${sid}.json`]);
      t.clock.advance(SESSION_TTL_MS);
      const page = await request(t.app).get(loginPath()).set('Cookie', cookie).expect(200);
      expect(page.text).toContain('name="password"');
      expect(await sessionsOf(t)).toEqual({});

      const next = await signIn(t.app);
      await t.store.flush();
      const nextSid = decodeURIComponent(next.split('=')[1]!)
        .replace(/^s:/, '')
        .replace(/\.[^.]*$/, '');
      expect(Object.keys(await sessionsOf(t))).toEqual([nextSid]);
      expect(readdirSync(join(dir, 'state', 'sessions'))).toEqual([`${nextSid}.json`]);
    },
  );

  it('are not created for a visitor who only hits an error page', async () => {
    const t = await buildTestApp();
    const res = await request(t.app)
      .get(loginPath({ clientId: 'unknown' }))
      .expect(400);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(await sessionsOf(t)).toEqual({});
  });
});
