import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import request from 'supertest';

import { SESSION_TTL_MS } from '../../src/auth/session.js';
import { buildTestApp } from '../helpers/build-test-app.js';
import { formFields, loginPath } from '../helpers/oauth.js';
import { DEMO_USER } from '../helpers/demo.js';

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
  const res = await request(app).post('/login').set('Cookie', cookie).type('form').send({ ...formFields(page.text), ...DEMO_USER }).expect(302);
  return (res.headers['set-cookie'] as unknown as string[])[0]!.split(';')[0]!;
}

describe('login sessions', () => {
  it('survive a restart on the same DATA_FILE: the browser is still signed in', async () => {
    const env = { DATA_FILE: join(dir, 'state.json') };
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
    expect(t.store.read((d) => d.sessionSecret)).toMatch(/^[\w-]{40,}$/);
  });

  it('write the secret back after a global reset emptied it, so a restart keeps the sessions', async () => {
    const t = await buildTestApp();
    const secret = t.store.read((d) => d.sessionSecret);
    await t.store.write((d) => {
      d.sessionSecret = null;
      d.sessions = [];
    });
    await signIn(t.app);
    expect(t.store.read((d) => d.sessionSecret)).toBe(secret);
  });

  it('end a day after they were last used (process clock), and are then dropped from the store', async () => {
    const t = await buildTestApp();
    const cookie = await signIn(t.app);
    t.clock.advance(SESSION_TTL_MS);
    const page = await request(t.app).get(loginPath()).set('Cookie', cookie).expect(200);
    expect(page.text).toContain('name="password"');
    expect(t.store.read((d) => d.sessions.length)).toBe(1);
    expect(t.store.read((d) => d.sessions[0]!.expiresAt)).toBe(new Date(t.clock.now().getTime() + SESSION_TTL_MS).toISOString());
  });

  it('are not created for a visitor who only hits an error page', async () => {
    const t = await buildTestApp();
    const res = await request(t.app).get(loginPath({ clientId: 'unknown' })).expect(400);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(t.store.read((d) => d.sessions)).toEqual([]);
  });
});
