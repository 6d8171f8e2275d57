import request from 'supertest';

import { sweepIdleAccounts } from '../../src/accounts/lifecycle.js';
import { HOSTED_LIMITS } from '../../src/config.js';
import { LAST_REQUEST_RESOLUTION_MS } from '../../src/store/store.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';

// Issue 40, item 7: a hosted sandbox has a total bound on the accounts it stores (MAX_ACCOUNTS,
// 10,000 by default: with each account's own bounds, a bound on the disk it takes), answered 507
// naming the setting, and an IPv6 account-creation limit wider than a /64
// (ACCOUNT_CREATION_PREFIX_LIMIT per /48), since one site holds 65,536 /64s.

const HOSTED = { PUBLIC_URL: 'https://sandbox.example.com' };
const FIXTURE_ACCOUNTS = 2;

const apps: TestApp[] = [];
afterEach(async () => {
  for (const t of apps.splice(0)) await t.deps.dispatcher.idle();
});

async function hosted(env: Record<string, string> = {}): Promise<TestApp> {
  const t = await buildTestApp({ env: { ...HOSTED, ...env } });
  apps.push(t);
  return t;
}

const createFrom = (t: TestApp, address: string): request.Test =>
  request(t.app).post('/sandbox/accounts').set('X-Forwarded-For', address).send({});

describe('MAX_ACCOUNTS', () => {
  it('is 10,000 on a hosted sandbox and none on a local one', async () => {
    expect(HOSTED_LIMITS.accounts).toBe(10_000);
    expect((await hosted()).deps.config.limits.accounts).toBe(10_000);
    expect((await buildTestApp()).deps.config.limits.accounts).toBe(0);
  });

  it('a flood of creations from many addresses, all at once, never stores more: the rest are a 507 naming the setting', async () => {
    const t = await hosted({ MAX_ACCOUNTS: String(FIXTURE_ACCOUNTS + 5), METRICS_OPEN: 'true' });
    // 20 at once, each from an address of its own: no per-address limit stops them.
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => createFrom(t, `203.0.113.${i + 1}`).then((res) => res)),
    );
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(statuses.filter((s) => s === 507)).toHaveLength(15);
    expect(await t.store.accounts.count()).toBe(FIXTURE_ACCOUNTS + 5);
    const refused = answers.find((res) => res.status === 507)!;
    expect(refused.body).toEqual({
      error: 'limit_reached',
      message: `This sandbox holds ${FIXTURE_ACCOUNTS + 5} accounts, the most it allows (MAX_ACCOUNTS=${FIXTURE_ACCOUNTS + 5}); accounts unused for ACCOUNT_TTL are deleted, so try again later, or ask its operator to raise MAX_ACCOUNTS`,
    });
    // The operator sees the refusals.
    const metrics = (await request(t.app).get('/metrics').expect(200)).text;
    expect(metrics).toMatch(/sandbox_limited_requests_total\{rule="MAX_ACCOUNTS"\} 15\b/);
  });

  it('every account created before stays whole, and room comes back as idle accounts are deleted', async () => {
    const t = await hosted({ MAX_ACCOUNTS: String(FIXTURE_ACCOUNTS + 2), ACCOUNT_TTL: '3600' });
    const first = await createFrom(t, '198.51.100.1').expect(201);
    await createFrom(t, '198.51.100.2').expect(201);
    await createFrom(t, '198.51.100.3').expect(507);
    // The accounts made are untouched by the refusal.
    await request(t.app)
      .get('/v1/locations')
      .set('Authorization', `Bearer ${first.body.apiKey as string}`)
      .expect(200);
    // An hour without a request: both generated accounts end, and the sweep frees their places.
    t.clock.advance(3_600_000 + LAST_REQUEST_RESOLUTION_MS + 1);
    expect(await sweepIdleAccounts(t.deps)).toBe(2);
    await createFrom(t, '198.51.100.3').expect(201);
  });

  it('counts the accounts made with ADMIN_TOKEN too', async () => {
    const t = await hosted({ MAX_ACCOUNTS: String(FIXTURE_ACCOUNTS + 1), ADMIN_TOKEN: 'op' });
    const admin = { Authorization: 'Bearer op' };
    await request(t.app).post('/sandbox/accounts').set(admin).send({}).expect(201);
    const refused = await request(t.app).post('/sandbox/accounts').set(admin).send({}).expect(507);
    expect(refused.body.message).toContain('MAX_ACCOUNTS=3');
  });
});

describe('ACCOUNT_CREATION_PREFIX_LIMIT', () => {
  it('with the hosted defaults, one IPv6 /48 creates 60 accounts an hour however many /64s it uses; another /48 and IPv4 are counted apart', async () => {
    const t = await hosted();
    expect(t.deps.config.limits).toMatchObject({ accountCreationsPerHour: 20, accountCreationsPerPrefixPerHour: 60 });
    // Three /64s of one /48, 20 each (the per-address limit): 60 accounts.
    for (const net of ['2001:db8:77:1', '2001:db8:77:2', '2001:db8:77:3'])
      for (let i = 1; i <= 20; i++) await createFrom(t, `${net}::${i.toString(16)}`).expect(201);
    // A fourth /64, never used: the /48's limit refuses it, naming the setting.
    const refused = await createFrom(t, '2001:db8:77:4::1').expect(429);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(refused.body).toEqual({
      error: 'rate_limited',
      message: expect.stringContaining(
        'Too many accounts created from this network: this sandbox allows 60 an hour per IPv6 /48 (ACCOUNT_CREATION_PREFIX_LIMIT=60)',
      ),
    });
    await createFrom(t, '2001:db8:77:ffff:1::1').expect(429);
    // Another /48 and an IPv4 client have limits of their own.
    await createFrom(t, '2001:db8:78:1::1').expect(201);
    await createFrom(t, '203.0.113.50').expect(201);
    await createFrom(t, '::ffff:203.0.113.51').expect(201);
  });

  it('names ACCOUNT_CREATION_LIMIT first, for a single /64 over its own limit', async () => {
    const t = await hosted({ ACCOUNT_CREATION_LIMIT: '1', ACCOUNT_CREATION_PREFIX_LIMIT: '5' });
    await createFrom(t, '2001:db8:90:1::1').expect(201);
    const refused = await createFrom(t, '2001:db8:90:1::2').expect(429);
    expect(refused.body.message).toContain('ACCOUNT_CREATION_LIMIT=1');
  });

  it('is off while ADMIN_TOKEN guards account creation, and on a local sandbox', async () => {
    const admin = await hosted({ ADMIN_TOKEN: 'op', ACCOUNT_CREATION_PREFIX_LIMIT: '1', ACCOUNT_CREATION_LIMIT: '1' });
    for (let i = 1; i <= 3; i++)
      await request(admin.app)
        .post('/sandbox/accounts')
        .set('Authorization', 'Bearer op')
        .set('X-Forwarded-For', `2001:db8:91:${i}::1`)
        .send({})
        .expect(201);
    const local = await buildTestApp();
    for (let i = 1; i <= 3; i++) await createFrom(local, `2001:db8:92:${i}::1`).expect(201);
  });
});
