import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { LOGIN_WINDOW_MS } from '../../src/auth/throttle.js';
import { buildTestApp, sessionsOf, type TestApp } from '../helpers/build-test-app.js';
import { BEHIND_HTTPS_PROXY } from '../helpers/dashboard-sign-in.js';
import { DEMO_USER } from '../helpers/demo.js';
import { csrfTokenOf } from '../helpers/html.js';
import { loginPath } from '../helpers/oauth.js';

// Issue 40, item 2: successful sign-ins were never limited, and past MAX_SESSIONS the session store
// ended the least recently used sessions of everyone: 10,050 sign-ins with the public demo user
// signed a victim out, on both stores. Now every sign-in counts against SIGN_IN_LIMIT per client
// address, and past MAX_SESSIONS the biggest holder (the network that signed in the most
// sessions) loses its own least recently used first. Reproduced on a hosted sandbox, real HTTP,
// with MAX_SESSIONS small so that a flood reaches it in a test's time.

const MAX_SESSIONS = 40;
const HOSTED = { PUBLIC_URL: 'https://sandbox.example.com', MAX_SESSIONS: String(MAX_SESSIONS) };

let t: TestApp;
let server: Server;
let base: string;

beforeEach(async () => {
  // On a window boundary of the sign-in limits, so that no window ends during a test.
  t = await buildTestApp({
    env: HOSTED,
    start: new Date(Math.ceil(Date.parse('2026-03-10T15:30:00Z') / LOGIN_WINDOW_MS) * LOGIN_WINDOW_MS),
  });
  server = t.app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await t.deps.dispatcher.idle();
});

type Form = 'dashboard' | 'login';
const FORMS: Record<Form, { page: string; post: string }> = {
  dashboard: { page: '/', post: '/dashboard/sign-in' },
  login: { page: loginPath(), post: '/login' },
};

/** One browser's sign-in from `from` (X-Forwarded-For, as the proxy in front sets it). */
async function signIn(
  form: Form,
  from: string,
  credentials = DEMO_USER,
): Promise<{ status: number; cookie: string | null; retryAfter: string | null; text: string }> {
  const headers = { ...BEHIND_HTTPS_PROXY, 'x-forwarded-for': from };
  const page = await fetch(`${base}${FORMS[form].page}`, { headers });
  const csrfCookie = page.headers.get('set-cookie')!.split(';')[0]!;
  const html = await page.text();
  const hidden = Object.fromEntries(
    [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]),
  );
  const res = await fetch(`${base}${FORMS[form].post}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...headers, cookie: csrfCookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...hidden, csrf_token: csrfTokenOf(html), ...credentials }),
  });
  const session = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .find((c) => c.startsWith('__Host-water_sandbox_session='));
  return {
    status: res.status,
    cookie: session ?? null,
    retryAfter: res.headers.get('retry-after'),
    text: await res.text(),
  };
}

/** Whether the browser of `cookie` is still signed in, on both hosts: the dashboard shows its page, /login returns a code. */
async function signedIn(cookie: string): Promise<boolean> {
  const headers = { ...BEHIND_HTTPS_PROXY, cookie };
  const dashboard = await (await fetch(`${base}/`, { headers })).text();
  const login = await fetch(`${base}${loginPath()}`, { headers, redirect: 'manual' });
  const both = [dashboard.includes('id="sign-out"'), /[?&]code=/.test(login.headers.get('location') ?? '')];
  expect(both[0]).toBe(both[1]);
  return both[0]!;
}

describe('a sign-in flood on a hosted sandbox', () => {
  it('one address: every sign-in counts, the right password too, and past SIGN_IN_LIMIT (60 a minute) the form answers 429 with Retry-After', async () => {
    expect(t.deps.config.limits.signInsPerMinute).toBe(60);
    const attacker = '203.0.113.66';
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) statuses.push((await signIn(i % 2 === 0 ? 'dashboard' : 'login', attacker)).status);
    expect(statuses.every((s) => s === 302 || s === 303)).toBe(true);
    const refused = await signIn('dashboard', attacker);
    expect(refused).toMatchObject({ status: 429, cookie: null, retryAfter: expect.stringMatching(/^\d+$/) });
    expect(refused.text).toContain(
      'Too many sign-ins from this address: this sandbox allows 60 a minute (SIGN_IN_LIMIT=60)',
    );
    expect((await signIn('login', attacker)).status).toBe(429);
    // Another IPv4 address is another client.
    expect((await signIn('login', '198.51.100.9')).status).toBe(302);
    // The window passes: the address may sign in again.
    t.clock.advance(LOGIN_WINDOW_MS);
    expect((await signIn('dashboard', attacker)).status).toBe(303);
  });

  it('IPv6: the /64s of one /48 share one SIGN_IN_LIMIT for the /48, beside each /64’s own; another /48 is another client', async () => {
    const limit = t.deps.config.limits.signInsPerMinute;
    // One /64 alone reaches the address limit.
    for (let i = 0; i < limit; i++) expect((await signIn('dashboard', '2001:db8:a:1::1')).status).toBe(303);
    expect((await signIn('dashboard', '2001:db8:a:1::2')).text).toContain('Too many sign-ins from this address');
    // A fresh /64 of the same /48 is refused too: the /48 has had its minute's share.
    const sibling = await signIn('login', '2001:db8:a:2::1');
    expect(sibling).toMatchObject({ status: 429, cookie: null });
    expect(sibling.text).toContain('Too many sign-ins from this network (an IPv6 /48)');
    expect((await signIn('login', '2001:db8:b:1::1')).status).toBe(302);
  });

  it('many addresses of one network, with the shared demo user, past MAX_SESSIONS: they end their own sessions, never the partners’ (who use the demo user too)', async () => {
    // Two partners, each on its own network: one on the dashboard, one through an OAuth sign-in.
    const victims = [
      (await signIn('dashboard', '198.51.100.7')).cookie!,
      (await signIn('login', '2001:db8:7777:1::5')).cookie!,
    ];
    for (const cookie of victims) expect(await signedIn(cookie)).toBe(true);

    // The flood: 3 times MAX_SESSIONS sign-ins of the demo user from the /64s of one /48, as many
    // a minute as SIGN_IN_LIMIT lets the /48 make (sessions last a day: minutes change nothing).
    const flood: string[] = [];
    for (let i = 0; i < MAX_SESSIONS * 3; i++) {
      if (i > 0 && i % t.deps.config.limits.signInsPerMinute === 0) t.clock.advance(LOGIN_WINDOW_MS);
      const { status, cookie } = await signIn(
        i % 2 === 0 ? 'dashboard' : 'login',
        `2001:db8:bad:${(i + 1).toString(16)}::1`,
      );
      expect([302, 303]).toContain(status);
      flood.push(cookie!);
    }
    const live = await sessionsOf(t);
    expect(Object.keys(live)).toHaveLength(MAX_SESSIONS);
    // The partners are signed in still, on both hosts; the flood kept only its newest sessions.
    for (const cookie of victims) expect(await signedIn(cookie)).toBe(true);
    expect(await signedIn(flood.at(-1)!)).toBe(true);
    expect(await signedIn(flood[0]!)).toBe(false);
    // Each session counts for the network it came from: the flood's /48 holds all but the partners' two.
    const holders = Object.values(live).map((s) => s['holder']);
    expect(holders.filter((h) => h === '2001:db8:bad::/48')).toHaveLength(MAX_SESSIONS - 2);
    expect(holders).toEqual(expect.arrayContaining(['198.51.100.7', '2001:db8:7777::/48']));
  });
});
