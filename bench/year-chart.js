// A year of a location's day buckets as text charts: weekly totals, monthly totals and the
// mean by weekday, to check by eye that it looks like a household.
//   npm run build && node bench/year-chart.js [locationId] [year]
// Defaults: the demo account's first location, last year. SEED is read from the environment.
import { DEMO_API_KEY, startSandbox } from './lib/sandbox.js';

const [locationArg, yearArg] = process.argv.slice(2);
const sandbox = await startSandbox({ env: process.env.SEED ? { SEED: process.env.SEED } : {} });
try {
  const location = sandbox.store.read((d) =>
    locationArg ? d.locations.find((l) => l.locationId === locationArg) : d.locations[0],
  );
  if (!location) throw new Error(`no location ${locationArg}`);
  const year = Number(yearArg ?? new Date().getUTCFullYear() - 1);
  const account = sandbox.store.read((d) => d.apiKeys.find((k) => k.accountId === location.accountId));
  const key = account?.apiKey ?? DEMO_API_KEY;
  // Local midnight of 1 January is found by asking for the year bucket around it.
  const probe = await get(`startTime=${year}-01-01T12:00:00Z&endTime=${year}-01-01T13:00:00Z&groupBy=year`);
  const start = probe.readings[0].time;
  const end = (await get(`startTime=${year + 1}-01-01T12:00:00Z&endTime=${year + 1}-01-01T13:00:00Z&groupBy=year`))
    .readings[0].time;
  const days = [];
  for (let page = 1; ; page++) {
    const body = await get(
      `startTime=${encodeURIComponent(start)}&endTime=${encodeURIComponent(end)}&groupBy=day&perPage=100&page=${page}`,
    );
    days.push(...body.readings);
    if (page >= body.pageCount) break;
  }
  console.log(
    `${location.name} (${location.timeZone}, ${JSON.stringify(location.profile)}), ${year}, SEED=${sandbox.deps.config.seed}`,
  );
  console.log(
    `${days.length} days, total ${sum(days.map((d) => d.volume)).toFixed(0)} gal, min day ${Math.min(...days.map((d) => d.volume))} gal, max day ${Math.max(...days.map((d) => d.volume))} gal\n`,
  );

  const weeks = [];
  for (let i = 0; i < days.length; i += 7)
    weeks.push({ label: days[i].time.slice(0, 10), volume: sum(days.slice(i, i + 7).map((d) => d.volume)) });
  chart('weekly totals (gal), weeks starting on', weeks);
  const months = Array.from({ length: 12 }, (_, m) => ({
    label: `${year}-${String(m + 1).padStart(2, '0')}`,
    volume: sum(days.filter((d) => Number(d.time.slice(5, 7)) === m + 1).map((d) => d.volume)),
  }));
  chart('monthly totals (gal)', months);
  const names = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const byWeekday = names.map((label, wd) => {
    const of = days.filter((d) => new Date(`${d.time.slice(0, 10)}T12:00:00Z`).getUTCDay() === wd).map((d) => d.volume);
    return { label, volume: sum(of) / of.length };
  });
  chart('mean per weekday (gal)', byWeekday);

  async function get(query) {
    const res = await fetch(`${sandbox.url}/v1/locations/${location.locationId}/readings/water-usage?${query}`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
    return res.json();
  }
} finally {
  await sandbox.close();
}

function sum(xs) {
  return xs.reduce((a, b) => a + b, 0);
}

function chart(title, rows) {
  const max = Math.max(...rows.map((r) => r.volume));
  console.log(title);
  for (const r of rows)
    console.log(
      `${r.label.padEnd(10)} ${r.volume.toFixed(0).padStart(7)} ${'#'.repeat(Math.round((50 * r.volume) / max))}`,
    );
  console.log('');
}
