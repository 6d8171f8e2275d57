import request from 'supertest';

import type { AlertRecord } from '../../src/store/data.js';
import { buildTestApp, changeDoc, TEST_START } from '../helpers/build-test-app.js';
import { DEMO_NEW_YORK, DEMO_LOS_ANGELES } from '../helpers/demo-locations.js';
import {
  bearer,
  DEMO_ACCOUNT_ID,
  DEMO_API_KEY,
  DEMO_LOCATION_ID,
  OTHER_API_KEY,
  OTHER_LOCATION_ID,
} from '../helpers/demo.js';
import { useTestApp } from '../helpers/use-test-app.js';

const ENVELOPE_KEYS = ['page', 'pageCount', 'perPage', 'readings', 'total', 'units'];
const SUMMARY_KEYS = ['thisMonth', 'thisYear', 'today', 'units'];
const usagePath = (id = DEMO_LOCATION_ID): string => `/v1/locations/${id}/readings/water-usage`;

interface Reading {
  time: string;
  volume: number;
}

const t = useTestApp();

const get = (path: string, key = DEMO_API_KEY): request.Test => request(t.app).get(path).set(bearer(key));
const totalOf = (readings: Reading[]): number => readings.reduce((sum, r) => sum + Math.round(r.volume * 1000), 0);

/** Every reading of a query, following pageCount as partner scripts do. */
async function allPages(query: string): Promise<Reading[]> {
  const out: Reading[] = [];
  for (let page = 1; ; page++) {
    const res = await get(`${usagePath()}?${query}&perPage=100&page=${page}`).expect(200);
    out.push(...res.body.readings);
    if (page >= res.body.pageCount) return out;
  }
}

describe('GET /v1/locations/{id}/readings/water-usage', () => {
  it('answers the official Node client request (all five parameters, toISOString, unencoded, JSON content type on a GET)', async () => {
    const res = await request(t.app)
      .get(
        `${usagePath()}?startTime=2026-03-09T00:00:00.000Z&endTime=2026-03-10T00:00:00.000Z&groupBy=hour&page=1&perPage=100`,
      )
      .set(bearer(DEMO_API_KEY))
      .set('Content-Type', 'application/json; charset=utf-8')
      .expect(200);
    expect(Object.keys(res.body).sort()).toEqual(ENVELOPE_KEYS);
    expect(res.body).toMatchObject({ page: 1, perPage: 100, pageCount: 1, total: 24, units: 'gallons' });
    expect(res.body.readings[0]).toEqual({ time: '2026-03-08T20:00:00-04:00', volume: expect.any(Number) });
    for (const reading of res.body.readings) {
      expect(Object.keys(reading).sort()).toEqual(['time', 'volume']);
      expect(reading.volume).toBeGreaterThanOrEqual(0);
      expect(Math.round(reading.volume * 1000) / 1000).toBe(reading.volume);
    }
  });

  it('reads a "+" offset that arrives as a space (official Python client) as "+"', async () => {
    const encoded = await get(
      `${usagePath()}?startTime=2026-03-09T05:30:00%2B05:30&endTime=2026-03-09T12:00:00Z`,
    ).expect(200);
    const raw = await get(`${usagePath()}?startTime=2026-03-09T05:30:00+05:30&endTime=2026-03-09T12:00:00Z`).expect(
      200,
    );
    expect(raw.body).toEqual(encoded.body);
    expect(raw.body.readings[0].time).toBe('2026-03-08T20:00:00-04:00');
  });

  it('takes epoch seconds and gives the same as ISO 8601', async () => {
    const iso = await get(
      `${usagePath()}?startTime=2026-03-09T04:00:00Z&endTime=2026-03-10T04:00:00Z&groupBy=day`,
    ).expect(200);
    const epoch = await get(`${usagePath()}?startTime=1773028800&endTime=1773115200&groupBy=day`).expect(200);
    expect(epoch.body).toEqual(iso.body);
    expect(iso.body.readings).toEqual([{ time: '2026-03-09T00:00:00-04:00', volume: expect.any(Number) }]);
  });

  it('defaults to groupBy hour, page 1, perPage 50 and endTime now', async () => {
    const res = await get(`${usagePath()}?startTime=2026-03-10T04:00:00Z`).expect(200);
    // 04:00Z to 15:30Z (the test clock): 12 hours, the last one in progress.
    expect(res.body).toMatchObject({ page: 1, perPage: 50, pageCount: 1, total: 12 });
    expect(res.body.readings.at(-1).time).toBe('2026-03-10T11:00:00-04:00');
  });

  it('never reaches past the account clock: a later endTime is cut at now and the hour in progress counts only so far', async () => {
    const later = await get(`${usagePath()}?startTime=2026-03-10T15:00:00Z&endTime=2030-01-01T00:00:00Z`).expect(200);
    expect(later.body.total).toBe(1);
    t.clock.advance(30 * 60 * 1000);
    const fullHour = await get(`${usagePath()}?startTime=2026-03-10T15:00:00Z`).expect(200);
    expect(later.body.readings[0].time).toBe(fullHour.body.readings[0].time);
    expect(Math.round(later.body.readings[0].volume * 1000)).toBe(
      Math.floor(Math.round(fullHour.body.readings[0].volume * 1000) / 2),
    );
  });

  it('follows the account clock, not the process clock', async () => {
    await changeDoc(t, (d) => {
      d.clock = { offsetMs: 0, frozenAtMs: Date.parse('2026-01-01T05:00:00Z') };
    });
    const res = await get(`${usagePath()}?startTime=2025-12-31T05:00:00Z&groupBy=day`).expect(200);
    expect(res.body.readings.map((r: Reading) => r.time)).toEqual(['2025-12-31T00:00:00-05:00']);
  });

  it('adds up to the same total for every groupBy over a range that cuts buckets', async () => {
    const range = 'startTime=2025-11-15T13:17:00Z&endTime=2026-02-03T08:00:00Z';
    const hourly = totalOf(await allPages(`${range}&groupBy=hour`));
    for (const groupBy of ['day', 'month', 'year'])
      expect(totalOf(await allPages(`${range}&groupBy=${groupBy}`))).toBe(hourly);
  });

  it('shows 23 and 25 hour days at daylight-saving changes in the location calendar', async () => {
    const res = await get(
      `${usagePath()}?startTime=2025-11-01T04:00:00Z&endTime=2025-11-03T05:00:00Z&groupBy=hour&perPage=100`,
    ).expect(200);
    expect(res.body.total).toBe(49);
    const la = DEMO_LOS_ANGELES.locationId;
    const spring = await get(
      `${usagePath(la)}?startTime=2026-03-08T08:00:00Z&endTime=2026-03-09T07:00:00Z&perPage=100`,
    ).expect(200);
    expect(spring.body.total).toBe(23);
    expect(spring.body.readings.map((r: Reading) => r.time).slice(1, 3)).toEqual([
      '2026-03-08T01:00:00-08:00',
      '2026-03-08T03:00:00-07:00',
    ]);
  });

  it('answers a page past the end with an empty readings array and the real counts', async () => {
    const res = await get(`${usagePath()}?startTime=2026-03-01T05:00:00Z&groupBy=day&perPage=5&page=9`).expect(200);
    expect(res.body).toEqual({ page: 9, perPage: 5, pageCount: 2, total: 10, readings: [], units: 'gallons' });
  });

  it('starts at the install date and shows nothing before it', async () => {
    const res = await get(
      `${usagePath()}?startTime=2023-03-01T00:00:00Z&endTime=2023-03-16T04:00:00Z&groupBy=day`,
    ).expect(200);
    expect(res.body.readings.map((r: Reading) => r.time)).toEqual([
      '2023-03-14T00:00:00-04:00',
      '2023-03-15T00:00:00-04:00',
    ]);
    const before = await get(`${usagePath()}?startTime=2023-01-01T00:00:00Z&endTime=2023-03-01T00:00:00Z`).expect(200);
    expect(before.body).toMatchObject({ total: 0, pageCount: 0, readings: [] });
  });

  it('gives the same readings in another app with the same SEED, and others with another SEED', async () => {
    const query = `${usagePath()}?startTime=2026-03-09T04:00:00Z&endTime=2026-03-10T04:00:00Z&perPage=24`;
    const first = await get(query).expect(200);
    const again = await buildTestApp();
    const second = await request(again.app).get(query).set(bearer(DEMO_API_KEY)).expect(200);
    expect(second.body).toEqual(first.body);
    const reseeded = await buildTestApp({ env: { SEED: '2' } });
    const third = await request(reseeded.app).get(query).set(bearer(DEMO_API_KEY)).expect(200);
    expect(third.body.readings).not.toEqual(first.body.readings);
  });

  it('does not depend on the order of requests or on other locations', async () => {
    const la = DEMO_LOS_ANGELES.locationId;
    const query = '?startTime=2026-02-01T00:00:00Z&endTime=2026-02-03T00:00:00Z&perPage=100';
    const nyFirst = await get(usagePath() + query);
    const laAfter = await get(usagePath(la) + query);
    const fresh = await buildTestApp();
    const laFirst = await request(fresh.app)
      .get(usagePath(la) + query)
      .set(bearer(DEMO_API_KEY));
    const nyAfter = await request(fresh.app)
      .get(usagePath() + query)
      .set(bearer(DEMO_API_KEY));
    expect([laFirst.body, nyAfter.body]).toEqual([laAfter.body, nyFirst.body]);
    expect(laFirst.body.readings).not.toEqual(nyFirst.body.readings);
  });

  it.each([
    ['', 'startTime', 'startTime is required'],
    ['startTime=', 'startTime', 'startTime is required'],
    ['startTime=last-week', 'startTime', 'must be ISO 8601'],
    ['startTime=2026-03-01T00:00:00', 'startTime', 'needs a UTC offset'],
    ['startTime=1772323200000', 'startTime', 'epoch milliseconds'],
    ['startTime=2026-03-01T00:00:00Z&endTime=soon', 'endTime', 'must be ISO 8601'],
    ['startTime=2026-03-01T00:00:00Z&endTime=2026-02-30T00:00:00Z', 'endTime', 'not a real date'],
    ['startTime=2026-03-02T00:00:00Z&endTime=2026-03-01T00:00:00Z', 'endTime', 'must not be before startTime'],
    ['startTime=2026-03-01T00:00:00Z&groupBy=week', 'groupBy', 'must be one of hour, day, month, year'],
    ['startTime=2026-03-01T00:00:00Z&groupBy=Day', 'groupBy', 'must be one of hour, day, month, year'],
    ['startTime=2026-03-01T00:00:00Z&perPage=101', 'perPage', 'from 1 to 100'],
    ['startTime=2026-03-01T00:00:00Z&perPage=0', 'perPage', 'from 1 to 100'],
    ['startTime=2026-03-01T00:00:00Z&page=0', 'page', 'page must be a whole number of 1 or more'],
    ['startTime=2026-03-01T00:00:00Z&page=1.5', 'page', 'page must be a whole number of 1 or more'],
    ['startTime=2026-03-01T00:00:00Z&page=-2', 'page', 'page must be a whole number of 1 or more'],
    ['startTime=2026-03-01T00:00:00Z&startTime=2026-03-02T00:00:00Z', 'startTime', 'given once'],
    ['startTime=2000-01-01T00:00:00Z', 'startTime', 'at most 7305 days'],
    ['startTime=2026-06-01T00:00:00Z', 'startTime', "after the account clock's now"],
  ])('refuses "%s" with a 400 naming %s (%s)', async (query, parameter, rule) => {
    const res = await get(`${usagePath()}?${query}`).expect(400);
    expect(res.body).toEqual({ error: 'invalid_parameter', parameter, message: expect.stringContaining(rule) });
    expect(res.body.message).toContain(parameter);
  });

  it.each(['invalid-locationid', OTHER_LOCATION_ID, '00000000-0000-4000-8000-000000000000'])(
    'answers 404 for location %s',
    async (id) => {
      const res = await get(`${usagePath(id)}?startTime=2026-03-01T00:00:00Z`).expect(404);
      expect(res.body).toEqual({ error: 'not_found', message: expect.any(String) });
    },
  );

  it('serves the other account its own location', async () => {
    const res = await get(`${usagePath(OTHER_LOCATION_ID)}?startTime=2026-03-10T07:00:00Z`, OTHER_API_KEY).expect(200);
    expect(res.body.readings[0].time).toBe('2026-03-10T00:00:00-07:00');
  });

  it('answers 401 without credentials and 405 for other methods', async () => {
    await request(t.app).get(`${usagePath()}?startTime=2026-03-01T00:00:00Z`).expect(401);
    const res = await request(t.app).post(usagePath()).set(bearer(DEMO_API_KEY)).expect(405);
    expect(res.headers['allow']).toBe('GET, HEAD');
  });

  it('answers 422 for a location whose zone changes the minutes of its offset in the range', async () => {
    await changeDoc(t, (d) => {
      d.locations.find((l) => l.locationId === DEMO_LOCATION_ID)!.timeZone = 'Australia/Lord_Howe';
    });
    // Lord Howe moves from +10:30 to +11:00 on 2025-10-05.
    const res = await get(`${usagePath()}?startTime=2025-09-01T00:00:00Z&groupBy=month`).expect(422);
    expect(res.body).toEqual({
      error: 'unsupported_time_zone',
      message: expect.stringContaining('Australia/Lord_Howe'),
    });
  });
});

describe('leaks and usage overrides in the readings', () => {
  const leak = (overrides: Partial<AlertRecord>): AlertRecord => ({
    alertId: 'a1',
    accountId: DEMO_ACCOUNT_ID,
    locationId: DEMO_LOCATION_ID,
    deviceId: 'd1',
    type: 'highLeak',
    active: true,
    startTime: Date.parse('2026-03-10T13:00:00Z') / 1000,
    detectedTime: Date.parse('2026-03-10T13:05:00Z') / 1000,
    stopTime: 0,
    peakValue: 3,
    peakStatus: null,
    flowGpm: 3,
    ...overrides,
  });
  const hours = async (): Promise<number[]> =>
    (await get(`${usagePath()}?startTime=2026-03-10T12:00:00Z`).expect(200)).body.readings.map((r: Reading) =>
      Math.round(r.volume * 1000),
    );

  it('an active leak adds its flow from its start up to now', async () => {
    const before = await hours();
    await changeDoc(t, (d) => {
      d.alerts.push(leak({}));
    });
    const after = await hours();
    // 12:00-13:00 untouched; 13:00-14:00 and 14:00-15:00 full hours of 3 gpm; 15:00-15:30 half.
    expect(after.map((v, i) => v - before[i]!)).toEqual([0, 180_000, 180_000, 90_000]);
  });

  it('an ended leak adds its flow only between start and stop, and alerts without flow add nothing', async () => {
    const before = await hours();
    await changeDoc(t, (d) => {
      d.alerts.push(leak({ active: false, stopTime: Date.parse('2026-03-10T13:20:00Z') / 1000 }));
      d.alerts.push(leak({ alertId: 'a2', type: 'ambientTemp', flowGpm: 0 }));
    });
    expect((await hours()).map((v, i) => v - before[i]!)).toEqual([0, 60_000, 0, 0]);
  });

  it('hours inside a usage override are scaled', async () => {
    const before = await hours();
    await changeDoc(t, (d) => {
      d.locations.find((l) => l.locationId === DEMO_LOCATION_ID)!.usageOverrides = [
        { fromMs: Date.parse('2026-03-10T13:00:00Z'), toMs: Date.parse('2026-03-10T14:00:00Z'), scale: 2 },
      ];
    });
    const after = await hours();
    expect(after).toEqual([before[0], 2 * before[1]!, before[2], before[3]]);
  });
});

describe('GET /v1/locations/{id}/readings/water-usage/summary', () => {
  it('has exactly the documented keys and numbers', async () => {
    const res = await get(`${usagePath()}/summary`).expect(200);
    expect(Object.keys(res.body).sort()).toEqual(SUMMARY_KEYS);
    expect(res.body.units).toBe('gallons');
    for (const key of ['today', 'thisMonth', 'thisYear']) expect(typeof res.body[key]).toBe('number');
    expect(res.body.today).toBeLessThan(res.body.thisMonth);
    expect(res.body.thisMonth).toBeLessThan(res.body.thisYear);
  });

  it('equals what the readings endpoint sums for today, this month and this year (location time zone, up to now)', async () => {
    t.clock.set(new Date('2026-03-10T03:30:00Z')); // 23:30 on the 9th in New York, 20:30 in Los Angeles
    for (const location of [DEMO_NEW_YORK, DEMO_LOS_ANGELES]) {
      const summary = (await get(`${usagePath(location.locationId)}/summary`).expect(200)).body;
      // Both zones moved to daylight time on 2026-03-08.
      const offset = location.timeZone === 'America/New_York' ? '-04:00' : '-07:00';
      const monthOffset = location.timeZone === 'America/New_York' ? '-05:00' : '-08:00';
      const sumOf = async (startTime: string, groupBy: string): Promise<number> => {
        const res = await get(
          `${usagePath(location.locationId)}?startTime=${encodeURIComponent(startTime)}&groupBy=${groupBy}&perPage=100`,
        ).expect(200);
        return totalOf(res.body.readings) / 1000;
      };
      expect(summary.today).toBe(await sumOf(`2026-03-09T00:00:00${offset}`, 'day'));
      expect(summary.thisMonth).toBe(await sumOf(`2026-03-01T00:00:00${monthOffset}`, 'month'));
      expect(summary.thisYear).toBe(await sumOf(`2026-01-01T00:00:00${monthOffset}`, 'year'));
      expect(summary.today).toBe(await sumOf(`2026-03-09T00:00:00${offset}`, 'hour'));
    }
  });

  it('counts from the install date in the install year', async () => {
    t.clock.set(new Date('2024-06-03T12:00:00Z'));
    const la = DEMO_LOS_ANGELES.locationId; // installed 2024-06-01
    const summary = (await get(`${usagePath(la)}/summary`).expect(200)).body;
    expect(summary.thisYear).toBe(summary.thisMonth);
    expect(summary.thisYear).toBeGreaterThan(summary.today);
  });

  it('answers 404 for another account location', async () => {
    await get(`${usagePath(OTHER_LOCATION_ID)}/summary`).expect(404);
  });
});

it('TEST_START is the instant these tests assume', () => {
  expect(TEST_START.toISOString()).toBe('2026-03-10T15:30:00.000Z');
});
