import request from 'supertest';

import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATIONS } from '../helpers/demo.js';

/** What a chart of a year of day buckets must show: see also `node bench/year-chart.js`. */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

async function yearOfDays(locationId: string, offset: string): Promise<{ time: string; volume: number }[]> {
  const out = [];
  for (let page = 1; page <= 4; page++) {
    const res = await request(t.app)
      .get(
        `/v1/locations/${locationId}/readings/water-usage?startTime=2025-01-01T00:00:00${encodeURIComponent(offset)}&endTime=2026-01-01T00:00:00${encodeURIComponent(offset)}&groupBy=day&perPage=100&page=${page}`,
      )
      .set(bearer(DEMO_API_KEY))
      .expect(200);
    out.push(...res.body.readings);
  }
  return out;
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const weekdayOf = (time: string): number => new Date(`${time.slice(0, 10)}T12:00:00Z`).getUTCDay();
const monthOf = (time: string): number => Number(time.slice(5, 7));

describe.each([
  { location: DEMO_LOCATIONS[0]!, offset: '-05:00', persons: 4, plainWeekdays: [2, 4] }, // waters Mon, Wed, Fri
  { location: DEMO_LOCATIONS[1]!, offset: '-08:00', persons: 2 * 0.8, plainWeekdays: [1, 2, 3, 4, 5] }, // scale 0.8, no irrigation
])('a year of day buckets of $location.name', ({ location, offset, persons, plainWeekdays }) => {
  let days: { time: string; volume: number }[];
  beforeAll(async () => {
    days = await yearOfDays(location.locationId, offset);
  });

  it('has 365 days, none negative or absurd, at a household magnitude (50-110 gal per person per day)', () => {
    expect(days).toHaveLength(365);
    const volumes = days.map((d) => d.volume);
    expect(Math.min(...volumes)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...volumes)).toBeLessThan(6 * median(volumes));
    expect(median(volumes) / persons).toBeGreaterThan(50);
    expect(median(volumes) / persons).toBeLessThan(110);
  });

  it('has a weekly rhythm: weekends above plain weekdays', () => {
    const weekend = days.filter((d) => [0, 6].includes(weekdayOf(d.time))).map((d) => d.volume);
    const plain = days.filter((d) => plainWeekdays.includes(weekdayOf(d.time))).map((d) => d.volume);
    expect(median(weekend) / median(plain)).toBeGreaterThan(1.05);
  });

  it('has a seasonal trend: July and August above January and February', () => {
    const summer = mean(days.filter((d) => [7, 8].includes(monthOf(d.time))).map((d) => d.volume));
    const winter = mean(days.filter((d) => [1, 2].includes(monthOf(d.time))).map((d) => d.volume));
    expect(summer / winter).toBeGreaterThan(1.1);
  });
});
