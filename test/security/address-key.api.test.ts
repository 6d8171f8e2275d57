import request from 'supertest';

import {
  FAILED_LOGINS_PER_ADDRESS,
  FAILED_TOKEN_REQUESTS_PER_ADDRESS,
  LOGIN_WINDOW_MS,
} from '../../src/auth/throttle.js';
import { addressKey } from '../../src/http/client-address.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { DEMO_CLIENT, DEMO_USER } from '../helpers/demo.js';
import { basicAuth, formFields, loginPath } from '../helpers/oauth.js';

// Per-address limits count an IPv6 client by its /64 (what one subscriber is given), and an
// IPv4-mapped IPv6 address as the IPv4 address it is: changing the last 64 bits of an address,
// or spelling an IPv4 address as IPv6, buys no fresh limit.

describe('addressKey', () => {
  it.each([
    ['203.0.113.10', '203.0.113.10'],
    ['::ffff:203.0.113.10', '203.0.113.10'],
    ['::ffff:cb00:710a', '203.0.113.10'],
    ['2001:db8:1:2::5', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:0000:0000:0000:0001', '2001:db8:1:2::/64'],
    ['2001:db8:1:3::5', '2001:db8:1:3::/64'],
    ['::1', '::/64'],
    ['fe80::1', 'fe80::/64'],
  ])('%s counts as %s', (address, key) => {
    expect(addressKey(address)).toBe(key);
  });

  it('keeps what is not an address as it is, and an unknown one as "unknown"', () => {
    expect(addressKey('not-an-address')).toBe('not-an-address');
    expect(addressKey(undefined)).toBe('unknown');
  });
});

let t: TestApp;
beforeEach(async () => {
  // On a window boundary of the sign-in throttle, so no window ends during a test.
  t = await buildTestApp({
    env: { PUBLIC_URL: 'https://sandbox.example.com', ACCOUNT_CREATION_LIMIT: '3' },
    start: new Date(Math.ceil(Date.parse('2026-03-10T15:30:00Z') / LOGIN_WINDOW_MS) * LOGIN_WINDOW_MS),
  });
});

afterEach(async () => {
  await t.deps.dispatcher.idle();
});

const createAccount = (from: string): request.Test =>
  request(t.app).post('/sandbox/accounts').set('X-Forwarded-For', from).send({});

describe('ACCOUNT_CREATION_LIMIT', () => {
  it('counts every address of a /64 as one client; the next /64 has its own limit', async () => {
    await createAccount('2001:db8:aa:1::1').expect(201);
    await createAccount('2001:db8:aa:1:1234:5678:9abc:def0').expect(201);
    await createAccount('2001:db8:aa:1:ffff::').expect(201);
    const refused = await createAccount('2001:db8:aa:1::99').expect(429);
    expect(refused.body.message).toContain('ACCOUNT_CREATION_LIMIT=3');
    await createAccount('2001:db8:aa:2::1').expect(201);
  });

  it('counts an IPv4-mapped IPv6 address as its IPv4 address', async () => {
    await createAccount('203.0.113.10').expect(201);
    await createAccount('::ffff:203.0.113.10').expect(201);
    await createAccount('203.0.113.10').expect(201);
    await createAccount('::ffff:cb00:710a').expect(429);
    await createAccount('203.0.113.11').expect(201);
  });
});

describe('the sign-in and token throttles', () => {
  // As a browser behind the hosted sandbox's https proxy: its cookies are Secure, so they are carried by hand.
  async function signIn(password: string, address: string): Promise<request.Response> {
    const proxy = { 'X-Forwarded-For': address, 'X-Forwarded-Proto': 'https' };
    const page = await request(t.app).get(loginPath()).set(proxy).expect(200);
    const cookies = (page.headers['set-cookie'] as unknown as string[]).map((c) => c.split(';')[0]!);
    return request(t.app)
      .post('/login')
      .set(proxy)
      .set('Cookie', cookies)
      .type('form')
      .send({ ...formFields(page.text), email: DEMO_USER.email, password });
  }

  it('count the failed sign-ins of a /64 together, whatever its last 64 bits', async () => {
    for (let i = 0; i < FAILED_LOGINS_PER_ADDRESS; i++)
      expect((await signIn('wrong', `2001:db8:bb:1::${(i + 1).toString(16)}`)).status).toBe(422);
    expect((await signIn(DEMO_USER.password, '2001:db8:bb:1:dead:beef::1')).status).toBe(429);
    expect((await signIn(DEMO_USER.password, '2001:db8:bb:2::1')).status).toBe(302);
  });

  it('count the failed token requests of a /64 together', async () => {
    const token = (address: string, code: string): request.Test =>
      request(t.app)
        .post('/oauth2/token')
        .set('X-Forwarded-For', address)
        .set('Authorization', basicAuth(DEMO_CLIENT.clientId, DEMO_CLIENT.clientSecret))
        .type('form')
        .send({ grant_type: 'authorization_code', code, redirect_uri: 'waterapp://callback' });
    for (let i = 0; i < FAILED_TOKEN_REQUESTS_PER_ADDRESS; i++)
      await token(`2001:db8:cc:1:${i.toString(16)}::1`, `guess-${i}`).expect(400);
    await token('2001:db8:cc:1::abcd', 'one-more').expect(429);
    await token('2001:db8:cc:2::abcd', 'one-more').expect(400);
  });
});
