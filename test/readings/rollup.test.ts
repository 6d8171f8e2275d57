import fc from 'fast-check';

import { BoundedMemo } from '../../src/readings/bounded-memo.js';
import { DAY_MS, HOUR_MS } from '../../src/readings/calendar.js';
import type { GroupBy } from '../../src/readings/local-hours.js';
import { UnsupportedTimeZoneError } from '../../src/readings/local-hours.js';
import { YearTotals } from '../../src/readings/model-sums.js';
import type { Bucket, LocationUsage } from '../../src/readings/rollup.js';
import { at, usageFor, ZONES } from './usage-fixtures.js';

const GROUPINGS: GroupBy[] = ['hour', 'day', 'month', 'year'];

/** Every bucket of the range, page by page. */
function allBuckets(usage: LocationUsage, from: number, to: number, groupBy: GroupBy, perPage: number): Bucket[] {
  const out: Bucket[] = [];
  for (let page = 1; ; page++) {
    const { buckets, total } = usage.page(from, to, groupBy, page, perPage);
    out.push(...buckets);
    if (page * perPage >= total) return out;
  }
}

const sumOf = (buckets: Bucket[]): number => buckets.reduce((a, b) => a + b.milliGallons, 0);

// One instance per zone across runs, so the memo of yearly totals is shared as in the service.
const shared = new Map<string, LocationUsage>();
const sharedUsage = (zone: string): LocationUsage => {
  if (!shared.has(zone)) shared.set(zone, usageFor(zone, { installDate: '2013-06-15' }));
  return shared.get(zone)!;
};

/** A range inside 2016-2027 starting at any millisecond: mostly up to 40 days, sometimes up to 14 months. */
const arbRange = fc
  .tuple(
    fc.integer({ min: at('2016-01-01T00:00:00Z'), max: at('2026-06-01T00:00:00Z') }),
    fc.oneof(
      { weight: 3, arbitrary: fc.integer({ min: 0, max: 40 * DAY_MS }) },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: 430 * DAY_MS }) },
    ),
  )
  .map(([from, length]) => ({ from, to: from + length }));

const arbCase = fc.record({ zone: fc.constantFrom(...ZONES), range: arbRange, groupBy: fc.constantFrom(...GROUPINGS) });

describe('roll-up invariants (property-based)', () => {
  it('the buckets of every grouping add up exactly to the hourly sum, and to sum()', () => {
    fc.assert(
      fc.property(arbCase, ({ zone, range: { from, to }, groupBy }) => {
        const usage = sharedUsage(zone);
        const hourly = sumOf(usage.page(from, to, 'hour', 1, 20_000).buckets);
        expect([sumOf(allBuckets(usage, from, to, groupBy, 20_000)), usage.sum(from, to)]).toEqual([hourly, hourly]);
      }),
      { numRuns: 70 },
    );
  });

  it('the memo of yearly totals never changes a result', () => {
    fc.assert(
      fc.property(arbCase, ({ zone, range: { from, to }, groupBy }) => {
        const uncached = usageFor(zone, { cache: false, installDate: '2013-06-15' }).page(from, to, groupBy, 1, 500);
        expect(JSON.stringify(uncached)).toBe(JSON.stringify(sharedUsage(zone).page(from, to, groupBy, 1, 500)));
      }),
      { numRuns: 60 },
    );
  });

  it('pages concatenate to the unpaged series, and a page past the end is empty', () => {
    fc.assert(
      fc.property(arbCase, fc.integer({ min: 1, max: 100 }), ({ zone, range: { from, to }, groupBy }, perPage) => {
        const usage = sharedUsage(zone);
        const whole = usage.page(from, to, groupBy, 1, 20_000);
        expect(JSON.stringify(allBuckets(usage, from, to, groupBy, perPage))).toBe(JSON.stringify(whole.buckets));
        expect(usage.page(from, to, groupBy, Math.ceil(whole.total / perPage) + 1, perPage)).toEqual({
          total: whole.total,
          buckets: [],
        });
      }),
      { numRuns: 80 },
    );
  });

  it('hourly buckets are exactly one hour apart, start on a local whole hour, and time names the start', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), arbRange, (zone, { from, to }) => {
        const { buckets, total } = sharedUsage(zone).page(from, to, 'hour', 1, 20_000);
        const problems = buckets.flatMap((b, i) => [
          ...(i > 0 && b.startMs - buckets[i - 1]!.startMs !== HOUR_MS ? [`gap before ${b.time}`] : []),
          ...(Date.parse(b.time) !== b.startMs ? [`${b.time} is not ${b.startMs}`] : []),
          ...(/T\d\d:00:00[+-]\d\d:\d\d$/.test(b.time) ? [] : [`${b.time} is not a whole local hour`]),
        ]);
        expect(problems).toEqual([]);
        expect(buckets.length).toBe(total);
        if (total > 0)
          expect([buckets[0]!.startMs <= from, buckets.at(-1)!.startMs + HOUR_MS >= to]).toEqual([true, true]);
      }),
      { numRuns: 80 },
    );
  });

  it('day, month and year buckets start at the first hour of their local date (midnight unless the clocks skip it)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        arbRange,
        fc.constantFrom<GroupBy>('day', 'month', 'year'),
        (zone, { from, to }, groupBy) => {
          const usage = sharedUsage(zone);
          const { buckets } = usage.page(from, to, groupBy, 1, 20_000);
          const datePart = { day: /^\d{4}-\d\d-\d\d/, month: /^\d{4}-\d\d-01/, year: /^\d{4}-01-01/ }[
            groupBy as 'day' | 'month' | 'year'
          ];
          const problems = buckets.flatMap((b) => {
            const before = usage.page(b.startMs - HOUR_MS, b.startMs, 'hour', 1, 1).buckets[0]!.time;
            const ok =
              datePart.test(b.time) &&
              /T0[01]:00:00/.test(b.time) &&
              (b.time.includes('T00:') || before.includes('T23:')) &&
              before.slice(0, 10) < b.time.slice(0, 10) &&
              Date.parse(b.time) === b.startMs;
            return ok ? [] : [`${b.time} (hour before: ${before})`];
          });
          expect(problems).toEqual([]);
        },
      ),
      { numRuns: 80 },
    );
  });
});

describe('whole years and months from the memo', () => {
  it('add up to the hour-by-hour figure over two calendar years, and over months and days around them', () => {
    const memo = usageFor('America/New_York', { installDate: '2013-06-15' });
    const direct = usageFor('America/New_York', { installDate: '2013-06-15', cache: false });
    for (const [from, to] of [
      ['2024-01-01T05:00:00Z', '2026-01-01T05:00:00Z'],
      ['2023-11-01T04:00:00Z', '2025-02-01T05:00:00Z'],
      ['2024-03-05T05:00:00Z', '2024-05-01T04:00:00Z'],
    ]) {
      const hourly = sumOf(direct.page(at(from!), at(to!), 'hour', 1, 20_000).buckets);
      expect([memo.sum(at(from!), at(to!)), direct.sum(at(from!), at(to!))]).toEqual([hourly, hourly]);
    }
  });
});

describe('a year whose zone changes its phase (Pyongyang: +09:00, then +08:30 from 2015-08-15)', () => {
  it('has no memo: its whole days are counted hour by hour, to the same figure', () => {
    const memo = usageFor('Asia/Pyongyang', { installDate: '2014-01-01' });
    const direct = usageFor('Asia/Pyongyang', { installDate: '2014-01-01', cache: false });
    const [from, to] = [at('2015-09-01T00:00:00+08:30'), at('2015-12-01T00:00:00+08:30')];
    const hourly = sumOf(direct.page(from, to, 'hour', 1, 20_000).buckets);
    expect(hourly).toBeGreaterThan(0);
    expect([memo.sum(from, to), sumOf(memo.page(from, to, 'month', 1, 10).buckets)]).toEqual([hourly, hourly]);
  });
});

describe('the bounded memos', () => {
  it('YearTotals keeps at most its number of years, forgetting the oldest first, and tells phases apart', () => {
    const totals = new YearTotals(2);
    const computed: string[] = [];
    const block = (year: number, phaseMs = 0) =>
      totals.get(
        year,
        phaseMs,
        () => (
          computed.push(`${year}/${phaseMs}`),
          { firstDay: year, days: new Float64Array(1), months: new Float64Array(13), year: phaseMs }
        ),
      );
    block(2024);
    block(2024);
    block(2024, 30 * 60_000);
    block(2025);
    block(2024, 30 * 60_000);
    block(2024);
    expect(computed).toEqual(['2024/0', '2024/1800000', '2025/0', '2024/0']);
  });

  it('BoundedMemo keeps at most its number of entries, forgetting the oldest first; replacing one forgets none', () => {
    const memo = new BoundedMemo<string, string>(2);
    const created: string[] = [];
    const get = (key: string) => memo.get(key, () => (created.push(key), `value of ${key}`));
    expect([get('a'), get('b'), get('a')]).toEqual(['value of a', 'value of b', 'value of a']);
    memo.set('b', 'new b');
    expect(get('b')).toBe('new b');
    get('a');
    expect(created).toEqual(['a', 'b']);
    get('c');
    get('a');
    expect(created).toEqual(['a', 'b', 'c', 'a']);
  });
});

describe('ranges and partial hours', () => {
  const usage = usageFor('America/New_York', { installDate: '2023-03-14' });

  it('counts a partial hour pro rata and keeps the bucket time at the hour start', () => {
    const hour = usage.page(at('2026-03-10T14:00:00Z'), at('2026-03-10T15:00:00Z'), 'hour', 1, 10).buckets[0]!;
    const half = usage.page(at('2026-03-10T14:30:00Z'), at('2026-03-10T15:00:00Z'), 'hour', 1, 10).buckets;
    expect(half).toEqual([
      { startMs: hour.startMs, time: '2026-03-10T10:00:00-04:00', milliGallons: Math.floor(hour.milliGallons / 2) },
    ]);
  });

  it('starts at the install date midnight and shows no hour before it', () => {
    const page = usage.page(at('2023-03-13T00:00:00Z'), at('2023-03-15T00:00:00Z'), 'hour', 1, 100);
    expect(page.buckets[0]!.time).toBe('2023-03-14T00:00:00-04:00');
    expect(page.total).toBe(20);
    expect(usage.page(at('2020-01-01T00:00:00Z'), at('2023-03-14T04:00:00Z'), 'day', 1, 100)).toEqual({
      total: 0,
      buckets: [],
    });
  });

  it('sums a range inside one hour, or across one hour boundary, by the shares of its hours', () => {
    const hourOf = (iso: string): number =>
      usage.page(at(iso), at(iso) + HOUR_MS, 'hour', 1, 1).buckets[0]!.milliGallons;
    const first = hourOf('2026-03-10T14:00:00Z');
    const second = hourOf('2026-03-10T15:00:00Z');
    expect(first).toBeGreaterThan(0);
    expect(usage.sum(at('2026-03-10T14:30:00Z'), at('2026-03-10T14:45:00Z'))).toBe(Math.floor(first / 4));
    expect(usage.sum(at('2026-03-10T14:30:00Z'), at('2026-03-10T15:30:00Z'))).toBe(
      Math.floor(first / 2) + Math.floor(second / 2),
    );
  });

  it("starts at the install date's midnight in the offset of that date, not of another era (Kathmandu: +05:30 until 1986, +05:45 since)", () => {
    const kathmandu = usageFor('Asia/Kathmandu', { installDate: '2013-06-15' });
    const page = kathmandu.page(at('2013-06-14T00:00:00Z'), at('2013-06-16T00:00:00Z'), 'hour', 1, 100);
    expect([page.buckets[0]!.time, page.buckets[0]!.startMs]).toEqual([
      '2013-06-15T00:00:00+05:45',
      at('2013-06-14T18:15:00Z'),
    ]);
  });

  it('shows a partly covered first bucket with its real start but only the hours inside the range', () => {
    const from = at('2026-02-14T17:00:00Z');
    const to = at('2026-03-01T05:00:00Z');
    const month = usage.page(from, to, 'month', 1, 10).buckets;
    expect(month.map((b) => b.time)).toEqual(['2026-02-01T00:00:00-05:00']);
    expect(month[0]!.milliGallons).toBe(usage.sum(from, to));
    expect(month[0]!.milliGallons).toBeLessThan(usage.sum(at('2026-02-01T05:00:00Z'), to));
  });

  it('answers an empty range with no buckets', () => {
    expect(usage.page(at('2026-01-01T00:00:00Z'), at('2026-01-01T00:00:00Z'), 'day', 1, 10)).toEqual({
      total: 0,
      buckets: [],
    });
  });
});

describe('daylight saving', () => {
  const hoursOfDays = (zone: string, from: string, to: string): { time: string; hours: number }[] => {
    const usage = usageFor(zone);
    const days = usage.page(at(from), at(to), 'day', 1, 100).buckets;
    return days.map((d, i) => ({ time: d.time, hours: ((days[i + 1]?.startMs ?? at(to)) - d.startMs) / HOUR_MS }));
  };
  /** The hour buckets of a zone from `from` to `to` (instants). */
  const hourBuckets = (zone: string, from: string, to: string): Bucket[] =>
    usageFor(zone).page(at(from), at(to), 'hour', 1, 10).buckets;

  it('New York: 23 hours on 2026-03-08 and 25 on 2026-11-01', () => {
    expect(hoursOfDays('America/New_York', '2026-03-07T05:00:00Z', '2026-03-10T04:00:00Z')).toEqual([
      { time: '2026-03-07T00:00:00-05:00', hours: 24 },
      { time: '2026-03-08T00:00:00-05:00', hours: 23 },
      { time: '2026-03-09T00:00:00-04:00', hours: 24 },
    ]);
    expect(hoursOfDays('America/New_York', '2026-10-31T04:00:00Z', '2026-11-03T05:00:00Z')).toEqual([
      { time: '2026-10-31T00:00:00-04:00', hours: 24 },
      { time: '2026-11-01T00:00:00-04:00', hours: 25 },
      { time: '2026-11-02T00:00:00-05:00', hours: 24 },
    ]);
  });

  it.each([
    {
      night: 'the repeated hour of the fall-back night appears twice, with each offset',
      from: '2026-11-01T04:00:00Z',
      to: '2026-11-01T08:00:00Z',
      hours: [
        '2026-11-01T00:00:00-04:00',
        '2026-11-01T01:00:00-04:00',
        '2026-11-01T01:00:00-05:00',
        '2026-11-01T02:00:00-05:00',
      ],
    },
    {
      night: 'the skipped hour of the spring-forward night is absent',
      from: '2026-03-08T05:00:00Z',
      to: '2026-03-08T08:00:00Z',
      hours: ['2026-03-08T00:00:00-05:00', '2026-03-08T01:00:00-05:00', '2026-03-08T03:00:00-04:00'],
    },
  ])('New York: $night', ({ from, to, hours }) => {
    expect(hourBuckets('America/New_York', from, to).map((b) => b.time)).toEqual(hours);
  });

  it('Sydney (southern hemisphere): 25 hours on 2026-04-05 and 23 on 2026-10-04', () => {
    expect(hoursOfDays('Australia/Sydney', '2026-04-03T13:00:00Z', '2026-04-06T14:00:00Z').map((d) => d.hours)).toEqual(
      [24, 25, 24],
    );
    expect(hoursOfDays('Australia/Sydney', '2026-10-02T14:00:00Z', '2026-10-05T13:00:00Z')).toEqual([
      { time: '2026-10-03T00:00:00+10:00', hours: 24 },
      { time: '2026-10-04T00:00:00+10:00', hours: 23 },
      { time: '2026-10-05T00:00:00+11:00', hours: 24 },
    ]);
  });

  it('Havana: a day whose midnight is skipped starts at 01:00', () => {
    // Cuba springs forward at 00:00 -> 01:00 (2026-03-08).
    expect(hoursOfDays('America/Havana', '2026-03-07T05:00:00Z', '2026-03-09T04:00:00Z')).toEqual([
      { time: '2026-03-07T00:00:00-05:00', hours: 24 },
      { time: '2026-03-08T01:00:00-04:00', hours: 23 },
    ]);
  });

  it('Samoa: a date the zone skipped (2011-12-30) has no bucket, and the totals still add up', () => {
    const usage = usageFor('Pacific/Apia');
    const from = at('2011-12-29T00:00:00Z');
    const to = at('2012-01-02T00:00:00Z');
    const days = usage.page(from, to, 'day', 1, 10);
    expect(days.buckets.map((b) => b.time)).toEqual([
      '2011-12-28T00:00:00-10:00',
      '2011-12-29T00:00:00-10:00',
      '2011-12-31T00:00:00+14:00',
      '2012-01-01T00:00:00+14:00',
      '2012-01-02T00:00:00+14:00',
    ]);
    expect(days.total).toBe(5);
    expect(sumOf(days.buckets)).toBe(sumOf(usage.page(from, to, 'hour', 1, 200).buckets));
    expect(usage.page(from, to, 'day', 2, 3).buckets.map((b) => b.time)).toEqual([
      '2012-01-01T00:00:00+14:00',
      '2012-01-02T00:00:00+14:00',
    ]);
  });

  it('Samoa: day buckets found by walking the dates end with the range (one ending at a local midnight has none after it)', () => {
    const days = usageFor('Pacific/Apia').page(at('2011-12-29T10:00:00Z'), at('2012-01-01T10:00:00Z'), 'day', 1, 10);
    expect(days.buckets.map((b) => b.time)).toEqual([
      '2011-12-29T00:00:00-10:00',
      '2011-12-31T00:00:00+14:00',
      '2012-01-01T00:00:00+14:00',
    ]);
    expect(days.total).toBe(3);
  });

  it('Kolkata (+05:30): local hours start at :30 UTC', () => {
    const buckets = hourBuckets('Asia/Kolkata', '2026-01-01T00:00:00Z', '2026-01-01T02:00:00Z');
    expect(buckets.map((b) => [new Date(b.startMs).toISOString(), b.time])).toEqual([
      ['2025-12-31T23:30:00.000Z', '2026-01-01T05:00:00+05:30'],
      ['2026-01-01T00:30:00.000Z', '2026-01-01T06:00:00+05:30'],
      ['2026-01-01T01:30:00.000Z', '2026-01-01T07:00:00+05:30'],
    ]);
  });

  it('months and years start at local midnight with the offset of that instant', () => {
    const usage = usageFor('America/New_York');
    expect(
      usage.page(at('2026-02-15T00:00:00Z'), at('2026-04-15T00:00:00Z'), 'month', 1, 10).buckets.map((b) => b.time),
    ).toEqual(['2026-02-01T00:00:00-05:00', '2026-03-01T00:00:00-05:00', '2026-04-01T00:00:00-04:00']);
    expect(
      usage.page(at('2024-06-01T00:00:00Z'), at('2026-02-01T00:00:00Z'), 'year', 1, 10).buckets.map((b) => b.time),
    ).toEqual(['2024-01-01T00:00:00-05:00', '2025-01-01T00:00:00-05:00', '2026-01-01T00:00:00-05:00']);
  });

  it('refuses a period in which the zone changes the minutes of its offset', () => {
    // Lord Howe falls back by half an hour on 2026-04-05.
    expect(() => usageFor('Australia/Lord_Howe').sum(at('2026-04-01T00:00:00Z'), at('2026-04-10T00:00:00Z'))).toThrow(
      UnsupportedTimeZoneError,
    );
    // Caracas moved from -04:30 to -04:00 on 2016-05-01: refused across it, served after it.
    expect(() => usageFor('America/Caracas').sum(at('2016-04-01T00:00:00Z'), at('2016-06-01T00:00:00Z'))).toThrow(
      UnsupportedTimeZoneError,
    );
    // Installed after the change: a range reaching back before it is served from the install date.
    expect(
      usageFor('America/Caracas', { installDate: '2017-01-01' })
        .page(at('2015-01-01T00:00:00Z'), at('2017-01-01T06:00:00Z'), 'hour', 1, 10)
        .buckets.map((b) => b.time),
    ).toEqual(['2017-01-01T00:00:00-04:00', '2017-01-01T01:00:00-04:00']);
  });
});

describe('extra flow and scaled hours', () => {
  const base = at('2026-01-01T00:00:00Z');
  const arbWindow = (maxLength: number) =>
    fc
      .tuple(fc.integer({ min: 0, max: 75 * DAY_MS }), fc.integer({ min: 1, max: maxLength }))
      .map(([start, length]) => ({ fromMs: base + start, toMs: base + start + length }));
  const arbExtras = fc.record({
    flows: fc.array(
      fc.tuple(arbWindow(3 * DAY_MS), fc.integer({ min: 1, max: 5 })).map(([w, gpm]) => ({ ...w, gpm })),
      { maxLength: 3 },
    ),
    scales: fc.array(
      fc.tuple(arbWindow(20 * DAY_MS), fc.integer({ min: 0, max: 4 })).map(([w, scale]) => ({ ...w, scale })),
      { maxLength: 3 },
    ),
  });

  it('the buckets of every grouping add up exactly to the hourly sum, and to sum(), with leaks and scaled hours (property-based)', () => {
    fc.assert(
      fc.property(
        arbExtras,
        arbWindow(45 * DAY_MS),
        fc.constantFrom(...ZONES),
        fc.constantFrom(...GROUPINGS),
        ({ flows, scales }, range, zone, groupBy) => {
          const usage = usageFor(zone, { installDate: '2025-06-01', flows, scales });
          const hourly = sumOf(usage.page(range.fromMs, range.toMs, 'hour', 1, 20_000).buckets);
          expect([
            sumOf(allBuckets(usage, range.fromMs, range.toMs, groupBy, 20_000)),
            usage.sum(range.fromMs, range.toMs),
          ]).toEqual([hourly, hourly]);
        },
      ),
      { numRuns: 40 },
    );
  });

  const from = at('2026-03-09T04:00:00Z');
  const to = at('2026-03-10T04:00:00Z');

  it('adds a leak flow to the hours it covers, pro rata, and nowhere else', () => {
    const plain = usageFor('America/New_York').page(from, to, 'hour', 1, 100).buckets;
    const leak = { fromMs: at('2026-03-09T14:15:00Z'), toMs: at('2026-03-09T16:00:00Z'), gpm: 2 };
    const leaking = usageFor('America/New_York', { flows: [leak] }).page(from, to, 'hour', 1, 100).buckets;
    const extra = leaking.map((b, i) => [b.time, b.milliGallons - plain[i]!.milliGallons]).filter(([, d]) => d !== 0);
    expect(extra).toEqual([
      ['2026-03-09T10:00:00-04:00', 90_000],
      ['2026-03-09T11:00:00-04:00', 120_000],
    ]);
    const day = usageFor('America/New_York', { flows: [leak] }).page(from, to, 'day', 1, 10).buckets;
    expect(day[0]!.milliGallons).toBe(sumOf(plain) + 210_000);
  });

  it('scales the hours an override covers, by whole hours of its start', () => {
    const plain = usageFor('America/New_York').page(from, to, 'hour', 1, 100).buckets;
    const scale = { fromMs: at('2026-03-09T13:30:00Z'), toMs: at('2026-03-09T16:00:00Z'), scale: 3 };
    const scaled = usageFor('America/New_York', { scales: [scale] });
    const hours = scaled.page(from, to, 'hour', 1, 100).buckets;
    const changed = hours.map((b, i) => [b.time, b.milliGallons, plain[i]!.milliGallons]).filter(([, a, b]) => a !== b);
    for (const [, after, before] of changed) expect(after).toBe(3 * (before as number));
    expect(changed.map(([time]) => time)).toEqual(
      ['2026-03-09T10:00:00-04:00', '2026-03-09T11:00:00-04:00'].filter((_, i) => plain[10 + i]!.milliGallons !== 0),
    );
    expect(scaled.sum(at('2026-03-01T05:00:00Z'), at('2026-04-01T04:00:00Z'))).toBe(
      sumOf(scaled.page(at('2026-03-01T05:00:00Z'), at('2026-04-01T04:00:00Z'), 'hour', 1, 1000).buckets),
    );
  });
});
