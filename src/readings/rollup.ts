import { civilFromDays, DAY_MS, daysFromCivil, HOUR_MS, nextMonthStart } from './calendar.js';
import type { UsageModel } from './generator.js';
import { LocalHours, localHoursFor, phaseOf, type GroupBy } from './local-hours.js';
import type { ZoneOffsets } from './zone.js';

/** Extra flow over [fromMs, toMs), e.g. an active leak, in gallons per minute. */
export interface ExtraFlow {
  fromMs: number;
  toMs: number;
  gpm: number;
}

/** Hours whose start lies in [fromMs, toMs) are scaled (toMs null: open-ended). */
export interface UsageScale {
  fromMs: number;
  toMs: number | null;
  scale: number;
}

/** Everything that decides a location's readings. */
export interface UsageSource {
  model: UsageModel;
  offsets: ZoneOffsets;
  /** Local day number of the install date: nothing exists before that day's first hour. */
  installDay: number;
  scales: readonly UsageScale[];
  flows: readonly ExtraFlow[];
  /** Optional memo of the model's totals per local year (see ModelTotalsMemo); results are identical without it. */
  totals?: YearTotals | undefined;
}

export interface Bucket {
  startMs: number;
  time: string;
  milliGallons: number;
}

export interface BucketPage {
  /** Buckets in the range, on every page together. */
  total: number;
  buckets: Bucket[];
}

export interface PeriodTotals {
  today: number;
  thisMonth: number;
  thisYear: number;
}

/**
 * Sums and buckets of one location's usage, in integer milli-gallons, so every total is
 * exact whatever the grouping.
 *
 * The unit is the hour (see LocalHours). An hour only partly inside a range counts the part
 * inside: its modelled volume pro rata (rounded down) plus any extra flow over that part.
 * Buckets are whole hours, and an hour's share depends only on the range, never on the
 * grouping: so the buckets of any grouping add up to exactly the sum of the hours.
 */
export class LocationUsage {
  readonly source: UsageSource;
  // The year block used last, so runs of day buckets skip the calendar maths.
  #lastBlock: { block: YearBlock; phaseMs: number } | null = null;

  constructor(source: UsageSource) {
    this.source = source;
  }

  /** One page of buckets of [fromMs, toMs), clipped to the install date. */
  page(fromMs: number, toMs: number, groupBy: GroupBy, page: number, perPage: number): BucketPage {
    const range = this.#effective(fromMs, toMs, groupBy);
    if (!range) return { total: 0, buckets: [] };
    const { hours, from, to } = range;
    const first = (page - 1) * perPage;
    const buckets: Bucket[] = [];

    if (groupBy === 'hour') {
      const firstHour = hours.floor(from);
      const total = Math.ceil((to - firstHour) / HOUR_MS);
      for (let i = first; i < Math.min(total, first + perPage); i++) {
        const h = firstHour + i * HOUR_MS;
        buckets.push({ startMs: h, time: hours.format(h), milliGallons: this.#hour(hours, h, from, to) });
      }
      return { total, buckets };
    }

    const starts = bucketStarts(hours, groupBy, from, to);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: past the last bucket the loop below does not run
    let end = first < starts.total ? starts.at(first) : 0;
    for (let i = first; i < Math.min(starts.total, first + perPage); i++) {
      const start = end;
      end = starts.at(i + 1);
      // Stryker disable next-line ConditionalExpression,EqualityOperator: a whole bucket summed from the memo or hour by hour is the same figure (rollup.test.ts compares them)
      const whole = start >= from && end <= to;
      const milliGallons = whole ? this.#sumBucket(hours, start, end, starts.day(i), starts.day(i + 1)) : this.#sum(hours, Math.max(start, from), Math.min(end, to));
      buckets.push({ startMs: start, time: hours.format(start), milliGallons });
    }
    return { total: starts.total, buckets };
  }

  /** Milli-gallons used in [fromMs, toMs), clipped to the install date. */
  sum(fromMs: number, toMs: number): number {
    const range = this.#effective(fromMs, toMs, 'hour');
    return range ? this.#sum(range.hours, range.from, range.to) : 0;
  }

  /** Today, this month and this year on the location's calendar, up to `nowMs`. */
  periodTotals(nowMs: number): PeriodTotals {
    const probe = localHoursFor(this.source.offsets, nowMs, nowMs, 'year');
    const currentHour = probe.floor(nowMs);
    const start = (groupBy: GroupBy): number => probe.bucketStart(groupBy, currentHour);
    return {
      today: this.sum(start('day'), nowMs),
      thisMonth: this.sum(start('month'), nowMs),
      thisYear: this.sum(start('year'), nowMs),
    };
  }

  /** The instant of the install date's first hour (midnight, or the first hour after it if the clocks skip it). */
  #installStart(): number {
    const { offsets, installDay } = this.source;
    return new LocalHours(offsets, phaseOf(offsets.offsetAt(installDay * DAY_MS))).dayStart(installDay);
  }

  /** The range clipped to the install date, and the local hours over it (checked: see localHoursFor). */
  #effective(fromMs: number, toMs: number, groupBy: GroupBy): { hours: LocalHours; from: number; to: number } | null {
    const from = Math.max(fromMs, this.#installStart());
    if (toMs <= from) return null;
    return { hours: localHoursFor(this.source.offsets, from, toMs, groupBy), from, to: toMs };
  }

  /** The share of the hour starting at h that lies in [a, b). */
  #hour(hours: LocalHours, h: number, a: number, b: number): number {
    const x = Math.max(h, a);
    const y = Math.min(h + HOUR_MS, b);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: #hour is asked only of hours that meet [a, b); an empty share is 0 either way
    if (y <= x) return 0;
    const full = this.#scaled(h, this.source.model.milliGallons(h, h + hours.offsets.offsetAt(h)));
    const modelled = Math.floor((full * (y - x)) / HOUR_MS);
    return modelled + this.#flowOver(x, y);
  }

  /** The sum of the shares of every hour in [a, b). */
  #sum(hours: LocalHours, a: number, b: number): number {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: an empty range sums to 0 the long way too
    if (b <= a) return 0;
    const firstFull = hours.ceil(a);
    const endFull = hours.floor(b);
    if (endFull < firstFull) return this.#hour(hours, hours.floor(a), a, b);
    let total = 0;
    // Stryker disable next-line ConditionalExpression: from an hour's start, the hour before has no share in [a, b)
    if (a < firstFull) total += this.#hour(hours, firstFull - HOUR_MS, a, b);
    if (endFull < b) total += this.#hour(hours, endFull, a, b);
    if (firstFull < endFull) {
      total += this.#modelled(hours, firstFull, endFull);
      total += this.#scaleCorrection(hours, firstFull, endFull);
      for (const flow of this.source.flows) total += this.#flowHours(hours, flow, firstFull, endFull);
    }
    return total;
  }

  /** A whole bucket [A, B) = local days [d0, d1): its model total straight from the memo. */
  #sumBucket(hours: LocalHours, A: number, B: number, d0: number, d1: number): number {
    const totals = this.source.totals;
    if (!totals) return this.#sum(hours, A, B);
    let total = this.#wholeDays(hours, totals, d0, d1);
    total += this.#scaleCorrection(hours, A, B);
    for (const flow of this.source.flows) total += this.#flowHours(hours, flow, A, B);
    return total;
  }

  /** The model's milli-gallons over whole hours [A, B), by whole days, months and years where the memo has them. */
  #modelled(hours: LocalHours, A: number, B: number): number {
    const totals = this.source.totals;
    // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: the memo's way and the hour-by-hour way give the same figure (rollup.test.ts compares them); the choice is speed, measured in the bench
    if (!totals || B - A < 12 * HOUR_MS) return this.#direct(hours, A, B);
    let total = 0;
    let day = hours.dayOf(A);
    let cursor = A;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a whole first day counted hour by hour is the same figure
    if (hours.dayStart(day) < A) {
      cursor = Math.min(hours.dayStart(day + 1), B);
      total += this.#direct(hours, A, cursor);
      day += 1;
    }
    // Stryker disable next-line ConditionalExpression,EqualityOperator: past B the lines below add nothing
    if (cursor >= B) return total;
    const lastDay = hours.dayOf(B);
    const lastDayStart = hours.dayStart(lastDay);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: an empty last part adds 0 either way
    if (lastDayStart < B) total += this.#direct(hours, Math.max(lastDayStart, cursor), B);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: an empty run of whole days adds 0 either way
    return day < lastDay ? total + this.#wholeDays(hours, totals, day, lastDay) : total;
  }

  /** Local days [d0, d1). */
  #wholeDays(hours: LocalHours, totals: YearTotals, d0: number, d1: number): number {
    const last = this.#lastBlock;
    // Stryker disable next-line all: the last block read again, a short cut to the figure the loop below finds
    if (d1 - d0 === 1 && last !== null && last.phaseMs === hours.phaseMs && d0 >= last.block.firstDay && d0 < last.block.firstDay + last.block.days.length) {
      return last.block.days[d0 - last.block.firstDay]!;
    }
    let total = 0;
    let day = d0;
    let blockYear = Number.NaN;
    let block: YearBlock | null = null;
    while (day < d1) {
      const { year, month, day: dom } = civilFromDays(day);
      // Stryker disable next-line ConditionalExpression,EqualityOperator: the same year's block fetched again from the memo is the same block
      if (year !== blockYear) {
        block = totals.get(year, hours.phaseMs, () => this.#yearBlock(hours, year));
        blockYear = year;
        this.#lastBlock = block && { block, phaseMs: hours.phaseMs };
      }
      if (!block) {
        // The zone changes phase this year (see localHoursFor): no memo, count hour by hour.
        const end = Math.min(d1, daysFromCivil(year + 1, 1, 1));
        total += this.#direct(hours, hours.dayStart(day), hours.dayStart(end));
        day = end;
        continue;
      }
      if (dom === 1) {
        const nextYear = daysFromCivil(year + 1, 1, 1);
        // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement: a whole year by its total or by its months and days is the same figure
        if (month === 1 && nextYear <= d1) {
          total += block.year;
          day = nextYear;
          continue;
        }
        const nextMonth = nextMonthStart(year, month);
        // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement: a whole month by its total or by its days is the same figure
        if (nextMonth <= d1) {
          total += block.months[month]!;
          day = nextMonth;
          continue;
        }
      }
      total += block.days[day - block.firstDay]!;
      day += 1;
    }
    return total;
  }

  #yearBlock(hours: LocalHours, year: number): YearBlock | null {
    const firstDay = daysFromCivil(year, 1, 1);
    const from = hours.dayStart(firstDay);
    const to = hours.dayStart(daysFromCivil(year + 1, 1, 1));
    // Stryker disable next-line ConditionalExpression,EqualityOperator: without a block the year is counted hour by hour, the same figure
    for (const offset of hours.offsets.offsetsDuring(from, to)) if (phaseOf(offset) !== hours.phaseMs) return null;
    const days = new Float64Array(daysFromCivil(year + 1, 1, 1) - firstDay);
    const model = this.source.model;
    for (let h = from; h < to; h += HOUR_MS) {
      const local = h + hours.offsets.offsetAt(h);
      days[Math.floor(local / DAY_MS) - firstDay]! += model.milliGallons(h, local);
    }
    const months = new Float64Array(13);
    let yearTotal = 0;
    days.forEach((value, i) => {
      months[civilFromDays(firstDay + i).month]! += value;
      yearTotal += value;
    });
    return { firstDay, days, months, year: yearTotal };
  }

  #direct(hours: LocalHours, A: number, B: number): number {
    const model = this.source.model;
    let total = 0;
    for (let h = A; h < B; h += HOUR_MS) total += model.milliGallons(h, h + hours.offsets.offsetAt(h));
    return total;
  }

  #factor(h: number): number {
    let factor = 1;
    for (const s of this.source.scales) if (h >= s.fromMs && (s.toMs === null || h < s.toMs)) factor *= s.scale;
    return factor;
  }

  #scaled(h: number, milli: number): number {
    const factor = this.#factor(h);
    // Stryker disable next-line ConditionalExpression: a factor of 1 rounds to the same figure; the test spares the multiplication
    return factor === 1 ? milli : Math.round(milli * factor);
  }

  /** Σ (scaled - unscaled) over the whole hours of [A, B) that some scale covers. */
  #scaleCorrection(hours: LocalHours, A: number, B: number): number {
    if (this.source.scales.length === 0) return 0;
    const spans = this.source.scales
      .map((s) => [Math.max(A, hours.ceil(s.fromMs)), Math.min(B, s.toMs ?? B)] as const)
      // Stryker disable next-line ConditionalExpression,EqualityOperator: an empty span adds no hour in the loop below either
      .filter(([x, y]) => x < y)
      .sort((p, q) => p[0] - q[0]);
    let total = 0;
    let h = A;
    for (const [x, y] of spans) {
      for (h = Math.max(h, x); h < y; h += HOUR_MS) {
        const milli = this.source.model.milliGallons(h, h + hours.offsets.offsetAt(h));
        total += this.#scaled(h, milli) - milli;
      }
    }
    return total;
  }

  /** Extra flow over [x, y), rounded per flow: gpm × ms / 60 is milli-gallons. */
  #flowOver(x: number, y: number): number {
    let total = 0;
    for (const flow of this.source.flows) {
      const overlap = Math.min(y, flow.toMs) - Math.max(x, flow.fromMs);
      if (overlap > 0) total += Math.round((flow.gpm * overlap) / 60);
    }
    return total;
  }

  /** One flow over the whole hours of [A, B), hour by hour as #hour counts it. */
  #flowHours(hours: LocalHours, flow: ExtraFlow, A: number, B: number): number {
    const from = Math.max(A, hours.floor(flow.fromMs));
    const to = Math.min(B, flow.toMs);
    let total = 0;
    for (let h = from; h < to; h += HOUR_MS) {
      const overlap = Math.min(h + HOUR_MS, flow.toMs) - Math.max(h, flow.fromMs);
      if (overlap > 0) total += Math.round((flow.gpm * overlap) / 60);
    }
    return total;
  }
}

interface YearBlock {
  firstDay: number;
  /** Per local day of the year, from Jan 1. */
  days: Float64Array;
  /** Per month 1-12 (index 0 unused). */
  months: Float64Array;
  year: number;
}

/**
 * The model's per-day, per-month and per-year totals of one location (one model, one zone),
 * by local year. Without it a ten-year roll-up visits 87,600 hours per request; with it, a
 * handful of numbers. Bounded: the oldest entry goes first (no reordering on a hit, which
 * would cost more than it saves here).
 */
export class YearTotals {
  readonly #max: number;
  readonly #blocks = new Map<number, YearBlock | null>();

  constructor(maxYears = 64) {
    this.#max = maxYears;
  }

  get(year: number, phaseMs: number, compute: () => YearBlock | null): YearBlock | null {
    // Stryker disable next-line ArithmeticOperator: any of these keys tells every (year, phase under an hour) apart
    const key = year * HOUR_MS + phaseMs;
    const hit = this.#blocks.get(key);
    if (hit !== undefined) return hit;
    const block = compute();
    if (this.#blocks.size >= this.#max) this.#blocks.delete(this.#blocks.keys().next().value as number);
    this.#blocks.set(key, block);
    return block;
  }
}

/** A bounded memo by string key, the oldest entry going first (models and their YearTotals, per location). */
export class BoundedMemo<T> {
  readonly #max: number;
  readonly #entries = new Map<string, T>();

  constructor(max: number) {
    this.#max = max;
  }

  get(key: string, create: () => T): T {
    const value = this.#entries.get(key);
    if (value !== undefined) return value;
    const created = create();
    this.set(key, created);
    return created;
  }

  set(key: string, value: T): void {
    if (!this.#entries.has(key) && this.#entries.size >= this.#max) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(key, value);
  }
}

/**
 * How many buckets [from, to) touches, and the start of bucket i (i = total gives the end of
 * the last one), without visiting every bucket: local dates, months and years are counted
 * on the calendar. Only a zone that skips a whole date (Samoa on 2011-12-30) makes day
 * buckets fall back to walking.
 */
function bucketStarts(
  hours: LocalHours,
  groupBy: Exclude<GroupBy, 'hour'>,
  from: number,
  to: number,
): { total: number; day: (i: number) => number; at: (i: number) => number } {
  const firstDay = hours.dayOf(hours.floor(from));
  const lastDay = hours.dayOf(hours.floor(to - 1));
  const at = (i: number): number => hours.dayStart(day(i));
  let total: number;
  let day: (i: number) => number;
  if (groupBy === 'day') {
    const offsets = hours.offsets;
    // Stryker disable next-line all: walking the days finds the same buckets as counting them; only a skipped date needs the walk
    const skipsADate = offsets.transitionsDuring(from - DAY_MS, to + DAY_MS).some((t) => offsets.offsetAt(t) - offsets.offsetAt(t - 1) >= DAY_MS - HOUR_MS);
    if (skipsADate) {
      const days = [firstDay];
      while (hours.dayStart(days.at(-1)!) < to) days.push(hours.dayOf(hours.dayStart(days.at(-1)! + 1)));
      return { total: days.length - 1, day: (i) => days[i]!, at: (i) => hours.dayStart(days[i]!) };
    }
    total = lastDay - firstDay + 1;
    day = (i) => firstDay + i;
  } else {
    const a = civilFromDays(firstDay);
    const b = civilFromDays(lastDay);
    if (groupBy === 'year') {
      total = b.year - a.year + 1;
      day = (i) => daysFromCivil(a.year + i, 1, 1);
    } else {
      const firstMonth = a.year * 12 + a.month - 1;
      total = b.year * 12 + b.month - 1 - firstMonth + 1;
      day = (i) => daysFromCivil(Math.floor((firstMonth + i) / 12), ((firstMonth + i) % 12) + 1, 1);
    }
  }
  return { total, day, at };
}
