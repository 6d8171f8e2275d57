import type { Express } from 'express';
import request from 'supertest';

import { createApp } from '../../src/app.js';
import { ReadingsService } from '../../src/readings/index.js';
import { buildTestApp, TEST_START, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';
import { startScenario } from '../scenarios/given.js';
import { endAlert, startAlert } from '../webhooks/support.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const usagePath = `/v1/locations/${DEMO_LOCATION_ID}/readings/water-usage`;

let t: TestApp;
/** The same sandbox (store, clock, documents) served by an app whose readings keep no page. */
let plain: Express;

beforeEach(async () => {
  t = await buildTestApp();
  plain = createApp({
    ...t.deps,
    readings: new ReadingsService({ clock: t.clock, config: t.deps.config, pageMemo: 0 }),
  });
});

const nowMs = (): number => t.clock.now().getTime();
const iso = (ms: number): string => new Date(ms).toISOString();

async function text(app: Express, query: Record<string, string>): Promise<string> {
  const res = await request(app).get(usagePath).query(query).set(bearer(DEMO_API_KEY)).expect(200);
  return res.text;
}

/** The page as the memoised app sends it, asked twice (the second from the memo), checked against the app without one. */
async function page(query: Record<string, string>): Promise<string> {
  const first = await text(t.app, query);
  const again = await text(t.app, query);
  expect(again).toBe(first);
  expect(first).toBe(await text(plain, query));
  return first;
}

const hours = (fromMs: number, toMs: number): Record<string, string> => ({
  startTime: iso(fromMs),
  endTime: iso(toMs),
  groupBy: 'hour',
  perPage: '100',
});

describe('pages of settled ranges, kept', () => {
  it('are sent as res.json sends the envelope: its JSON text, Content-Type and Content-Length, the first time and from the memo', async () => {
    const query = { startTime: iso(nowMs() - 30 * DAY), endTime: iso(nowMs() - DAY), groupBy: 'day' };
    for (const app of [t.app, t.app, plain]) {
      const res = await request(app).get(usagePath).query(query).set(bearer(DEMO_API_KEY)).expect(200);
      expect(res.text).toBe(JSON.stringify(res.body));
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.text)));
    }
    const head = await request(t.app).head(usagePath).query(query).set(bearer(DEMO_API_KEY)).expect(200);
    expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('are the same bytes as pages computed afresh, for every grouping and page of a year', async () => {
    const end = nowMs() - 2 * HOUR;
    for (const groupBy of ['hour', 'day', 'month', 'year']) {
      for (const pageNumber of ['1', '2', '4'])
        await page({ startTime: iso(end - 365 * DAY), endTime: iso(end), groupBy, page: pageNumber, perPage: '100' });
    }
  });

  it('show a leak that started after the page was kept', async () => {
    const range = hours(nowMs() - 3 * HOUR, nowMs());
    const before = await page(range);
    // Detected now, so flowing since five minutes before: inside the range.
    await startAlert(t, { type: 'highLeak', peakValue: 10 }).expect(201);
    const after = await page(range);
    expect(after).not.toBe(before);
  });

  it('follow a leak that ended, and the clock moving on past it', async () => {
    const from = nowMs() - 2 * HOUR;
    const started = await startAlert(t, { type: 'lowLeak', peakValue: 2 }).expect(201);
    t.clock.advance(30 * 60_000);
    const whileActive = hours(from, nowMs());
    const active = await page(whileActive);
    await endAlert(t, started.body.alertId as string).expect(200);
    expect(await page(whileActive)).toBe(active);
    t.clock.advance(2 * HOUR);
    await page(whileActive);
    await page(hours(from, nowMs()));
  });

  it('show the new hours of a range reaching past now as the clock moves into a new day', async () => {
    const range = { startTime: iso(nowMs() - 3 * DAY), endTime: iso(nowMs() + 2 * DAY), groupBy: 'day' };
    const today = await page(range);
    t.clock.advance(DAY);
    const tomorrow = await page(range);
    expect(tomorrow).not.toBe(today);
    t.clock.advance(2 * DAY);
    const settled = await page(range);
    expect(settled).not.toBe(tomorrow);
  });

  it('follow a scenario that scales the usage from now on', async () => {
    const from = nowMs() - 2 * HOUR;
    const past = hours(from, nowMs());
    const before = await page(past);
    await startScenario(t, 'monitor-offline');
    t.clock.advance(3 * HOUR);
    expect(await page(past)).toBe(before);
    await page(hours(from, nowMs()));
  });

  it('lose the leak a reset of the account removes', async () => {
    await startAlert(t, { type: 'highLeak', peakValue: 10 }).expect(201);
    t.clock.advance(HOUR);
    const range = hours(nowMs() - 2 * HOUR, nowMs());
    const withLeak = await page(range);
    await request(t.app).post('/sandbox/reset').set(bearer(DEMO_API_KEY)).expect(200);
    const afterReset = await page(range);
    expect(afterReset).not.toBe(withLeak);
  });

  it('stay within their bound', async () => {
    const small = new ReadingsService({ clock: t.clock, config: t.deps.config, pageMemo: 3 });
    const app = createApp({ ...t.deps, readings: small });
    const end = TEST_START.getTime() - DAY;
    for (let i = 0; i < 10; i++) {
      const query = hours(end - (i + 1) * HOUR, end - i * HOUR);
      expect(await text(app, query)).toBe(await text(plain, query));
    }
    expect(small.keptPages).toBe(3);
  });
});
