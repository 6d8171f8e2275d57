// Readings routes under load, each next to a bare Express route answering a body of the
// same size. Targets (printed, not asserted): at least half the bare route's throughput;
// ten years grouped by year under 20 ms.
import { randomUUID } from 'node:crypto';

import { compareWithBare } from './lib/measure.js';
import { BENCH_NOW, DEMO_API_KEY } from './lib/sandbox.js';

export const title = 'readings: GET /v1/locations/{id}/readings/water-usage(/summary)';

const iso = (date) => date.toISOString();
const yearsBefore = (date, years) =>
  new Date(
    Date.UTC(
      date.getUTCFullYear() - years,
      date.getUTCMonth(),
      date.getUTCDate(),
      date.getUTCHours(),
      date.getUTCMinutes(),
    ),
  );
const daysBefore = (date, days) => new Date(date.getTime() - days * 86_400_000);

export async function run({ sandbox, bare }) {
  // The fixtures' locations were installed in 2022-2024: add one with twelve years of data.
  const accountId = await sandbox.store.accounts.lookup('apiKey', DEMO_API_KEY);
  const locationId = randomUUID();
  await sandbox.store.accounts.update(accountId, (d) => {
    d.locations.push({
      locationId,
      accountId,
      name: 'Bench House',
      homeAway: 'home',
      timeZone: 'America/New_York',
      installDate: '2014-01-01',
      profile: {
        householdSize: 4,
        irrigation: { months: [5, 6, 7, 8, 9], startHour: 5, gallonsPerDay: 120, weekdays: [1, 3, 5] },
      },
      devices: [{ deviceId: randomUUID(), type: 'monitor', connected: true, calibrated: true }],
    });
  });
  const headers = { Authorization: `Bearer ${DEMO_API_KEY}` };
  const base = `${sandbox.url}/v1/locations/${locationId}/readings/water-usage`;
  // As the official Node client sends them: all five parameters, toISOString(), unencoded.
  const usage = (start, groupBy, page) =>
    `${base}?startTime=${iso(start)}&endTime=${iso(BENCH_NOW)}&groupBy=${groupBy}&page=${page}&perPage=100`;
  const cases = [
    // Not a readings route: the sandbox's floor (authentication, request journal, routing) for comparison.
    { name: 'reference: GET /v1/locations/{id}', url: `${sandbox.url}/v1/locations/${locationId}` },
    { name: 'a year of hours grouped by day (page 1 of 4)', url: usage(yearsBefore(BENCH_NOW, 1), 'day', 1) },
    { name: 'a month of hours, page 3 of 7 at 100', url: usage(daysBefore(BENCH_NOW, 28), 'hour', 3) },
    { name: 'ten years grouped by year', url: usage(yearsBefore(BENCH_NOW, 10), 'year', 1) },
    { name: 'summary', url: `${base}/summary` },
  ];
  const rows = [];
  for (const c of cases) {
    const row = await compareWithBare({ bare, headers, ...c });
    console.log(
      `${c.name}: ${row.rps.toFixed(0)} req/s vs bare ${row.bareRps.toFixed(0)} (ratio ${row.ratio.toFixed(2)}), 1-conn p50 ${row.seqP50.toFixed(2)} ms, first ${row.first.toFixed(1)} ms`,
    );
    rows.push(row);
  }
  return rows;
}
