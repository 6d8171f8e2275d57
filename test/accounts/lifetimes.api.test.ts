import request from 'supertest';

import { sweepIdleAccounts } from '../../src/accounts/index.js';
import { ENDED_ALERTS_KEPT_PER_LOCATION } from '../../src/alerts/service.js';
import { buildTestApp, docOf, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_ACCOUNT_ID, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';

const TTL_SECONDS = 3600;
let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp({ env: { ACCOUNT_TTL: String(TTL_SECONDS) } });
});

async function createAccount(): Promise<{ accountId: string; apiKey: string }> {
  const res = await request(t.app).post('/sandbox/accounts').send({ locations: 1 }).expect(201);
  return res.body as { accountId: string; apiKey: string };
}

describe('ACCOUNT_TTL', () => {
  it('deletes a generated account idle for longer than ACCOUNT_TTL, with its keys, and keeps the fixture accounts', async () => {
    const { accountId, apiKey } = await createAccount();
    t.clock.advance(TTL_SECONDS * 1000 + 1);
    expect(await sweepIdleAccounts(t.deps)).toBe(1);
    await request(t.app).get('/v1/locations').set(bearer(apiKey)).expect(403);
    expect(await t.store.accounts.get(accountId)).toBeNull();
    expect(await t.store.accounts.lookup('apiKey', apiKey)).toBeNull();
    await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(200);
  });

  it('counts from the last request, not from the creation', async () => {
    const { apiKey } = await createAccount();
    t.clock.advance(TTL_SECONDS * 1000 - 60_000);
    await request(t.app).get('/v1/locations').set(bearer(apiKey)).expect(200);
    t.clock.advance(120_000);
    expect(await sweepIdleAccounts(t.deps)).toBe(0);
    await request(t.app).get('/v1/locations').set(bearer(apiKey)).expect(200);
  });

  it('with ACCOUNT_TTL=0 never deletes an account', async () => {
    t = await buildTestApp({ env: { ACCOUNT_TTL: '0' } });
    const { apiKey } = await createAccount();
    t.clock.advance(10 * 365 * 24 * 3600_000);
    expect(await sweepIdleAccounts(t.deps)).toBe(0);
    await request(t.app).get('/v1/locations').set(bearer(apiKey)).expect(200);
  });
});

describe("a location's alert history", () => {
  it(`keeps the active alerts and the newest ${ENDED_ALERTS_KEPT_PER_LOCATION} ended ones`, async () => {
    for (let i = 0; i < ENDED_ALERTS_KEPT_PER_LOCATION + 10; i++) {
      const started = await request(t.app).post(`/sandbox/locations/${DEMO_LOCATION_ID}/alerts`).set(bearer(DEMO_API_KEY)).send({ type: 'humidity' }).expect(201);
      await request(t.app).post(`/sandbox/locations/${DEMO_LOCATION_ID}/alerts/${started.body.alertId as string}/end`).set(bearer(DEMO_API_KEY)).expect(200);
    }
    const active = await request(t.app).post(`/sandbox/locations/${DEMO_LOCATION_ID}/alerts`).set(bearer(DEMO_API_KEY)).send({ type: 'lowLeak' }).expect(201);
    const alerts = (await docOf(t, DEMO_ACCOUNT_ID)).alerts.filter((a) => a.locationId === DEMO_LOCATION_ID);
    expect(alerts.filter((a) => !a.active)).toHaveLength(ENDED_ALERTS_KEPT_PER_LOCATION);
    expect(alerts.filter((a) => a.active).map((a) => a.alertId)).toEqual([active.body.alertId]);
  });
});
