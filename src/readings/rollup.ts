import { bucketStarts } from './bucket-starts.js';
import { DAY_MS, HOUR_MS } from './calendar.js';
import type { UsageModel } from './generator.js';
import { LocalHours, localHoursFor, phaseOf, type GroupBy } from './local-hours.js';
import { ModelSums, type YearTotals } from './model-sums.js';
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
  readonly #model: ModelSums;

  constructor(source: UsageSource) {
    this.source = source;
    this.#model = new ModelSums(source.model);
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
    let end = first < starts.total ? starts.at(first) : 0;
    for (let i = first; i < Math.min(starts.total, first + perPage); i++) {
      const start = end;
      end = starts.at(i + 1);
      const whole = start >= from && end <= to;
      const milliGallons = whole
        ? this.#sumBucket(hours, start, end, starts.day(i), starts.day(i + 1))
        : this.#sum(hours, Math.max(start, from), Math.min(end, to));
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

  /** The share of the hour starting at h that lies in [a, b) (0 for an hour that only touches it). */
  #hour(hours: LocalHours, h: number, a: number, b: number): number {
    const x = Math.max(h, a);
    const y = Math.min(h + HOUR_MS, b);
    const full = this.#scaled(h, this.source.model.milliGallons(h, h + hours.offsets.offsetAt(h)));
    const modelled = Math.floor((full * (y - x)) / HOUR_MS);
    return modelled + this.#flowOver(x, y);
  }

  /** The sum of the shares of every hour in [a, b), a < b: the whole hours, and the parts of the hours at either end. */
  #sum(hours: LocalHours, a: number, b: number): number {
    const firstFull = hours.ceil(a);
    const endFull = hours.floor(b);
    if (endFull < firstFull) return this.#hour(hours, hours.floor(a), a, b);
    let total = this.#hour(hours, firstFull - HOUR_MS, a, b) + this.#hour(hours, endFull, a, b);
    if (firstFull < endFull) {
      total += this.#model.over(hours, this.source.totals, firstFull, endFull);
      total += this.#scaleCorrection(hours, firstFull, endFull);
      for (const flow of this.source.flows) total += this.#flowHours(hours, flow, firstFull, endFull);
    }
    return total;
  }

  /** A whole bucket [A, B) = local days [d0, d1): its model total straight from the memo. */
  #sumBucket(hours: LocalHours, A: number, B: number, d0: number, d1: number): number {
    const totals = this.source.totals;
    if (!totals) return this.#sum(hours, A, B);
    let total = this.#model.wholeDays(hours, totals, d0, d1);
    total += this.#scaleCorrection(hours, A, B);
    for (const flow of this.source.flows) total += this.#flowHours(hours, flow, A, B);
    return total;
  }

  #factor(h: number): number {
    let factor = 1;
    for (const s of this.source.scales) if (h >= s.fromMs && (s.toMs === null || h < s.toMs)) factor *= s.scale;
    return factor;
  }

  #scaled(h: number, milli: number): number {
    return Math.round(milli * this.#factor(h));
  }

  /** Σ (scaled - unscaled) over the whole hours of [A, B) that some scale covers. */
  #scaleCorrection(hours: LocalHours, A: number, B: number): number {
    if (this.source.scales.length === 0) return 0;
    const spans = this.source.scales
      .map((s) => [Math.max(A, hours.ceil(s.fromMs)), Math.min(B, s.toMs ?? B)] as const)
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
