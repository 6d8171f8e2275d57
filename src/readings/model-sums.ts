import { BoundedMemo } from './bounded-memo.js';
import { civilFromDays, DAY_MS, daysFromCivil, HOUR_MS, nextMonthStart } from './calendar.js';
import type { UsageModel } from './generator.js';
import { phaseOf, type LocalHours } from './local-hours.js';

/** The model's totals of one local year. */
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
 * handful of numbers. Bounded: the oldest entry goes first.
 */
export class YearTotals {
  readonly #blocks: BoundedMemo<number, YearBlock | null>;

  constructor(maxYears = 64) {
    this.#blocks = new BoundedMemo(maxYears);
  }

  get(year: number, phaseMs: number, compute: () => YearBlock | null): YearBlock | null {
    return this.#blocks.get(year * HOUR_MS + phaseMs, compute);
  }
}

/**
 * The model's milli-gallons over whole hours (no scales, no extra flows): hour by hour, or by
 * whole days, months and years from the memo of YearTotals where there is one. Both ways give
 * the same figure; the memo's is the fast one.
 */
export class ModelSums {
  readonly #model: UsageModel;
  // The year block used last, so runs of day buckets skip the calendar maths.
  #lastBlock: { block: YearBlock; phaseMs: number } | null = null;

  constructor(model: UsageModel) {
    this.#model = model;
  }

  /** Whole hours [A, B), by whole days, months and years where the memo has them. */
  over(hours: LocalHours, totals: YearTotals | undefined, A: number, B: number): number {
    if (!totals || B - A < 12 * HOUR_MS) return this.direct(hours, A, B);
    let total = 0;
    let day = hours.dayOf(A);
    let cursor = A;
    if (hours.dayStart(day) < A) {
      cursor = Math.min(hours.dayStart(day + 1), B);
      total += this.direct(hours, A, cursor);
      day += 1;
    }
    const lastDay = hours.dayOf(B);
    total += this.direct(hours, Math.max(hours.dayStart(lastDay), cursor), B);
    return total + this.wholeDays(hours, totals, day, lastDay);
  }

  /** Local days [d0, d1) (none when d1 <= d0). */
  wholeDays(hours: LocalHours, totals: YearTotals, d0: number, d1: number): number {
    const last = this.#lastBlock;
    if (
      d1 - d0 === 1 &&
      last !== null &&
      last.phaseMs === hours.phaseMs &&
      d0 >= last.block.firstDay &&
      d0 < last.block.firstDay + last.block.days.length
    ) {
      return last.block.days[d0 - last.block.firstDay] ?? 0;
    }
    let total = 0;
    for (let day = d0; day < d1;) {
      const yearEnd = Math.min(d1, daysFromCivil(civilFromDays(day).year + 1, 1, 1));
      total += this.#daysOfOneYear(hours, totals, day, yearEnd);
      day = yearEnd;
    }
    return total;
  }

  /** Whole hours [A, B), hour by hour. */
  direct(hours: LocalHours, A: number, B: number): number {
    let total = 0;
    for (let h = A; h < B; h += HOUR_MS) total += this.#model.milliGallons(h, h + hours.offsets.offsetAt(h));
    return total;
  }

  /** Local days [d0, d1) of one year, by the year's total, its months' and its days'. */
  #daysOfOneYear(hours: LocalHours, totals: YearTotals, d0: number, d1: number): number {
    const year = civilFromDays(d0).year;
    const block = totals.get(year, hours.phaseMs, () => this.#yearBlock(hours, year));
    this.#lastBlock = block && { block, phaseMs: hours.phaseMs };
    // The zone changes phase this year (see localHoursFor): no memo, count hour by hour.
    if (!block) return this.direct(hours, hours.dayStart(d0), hours.dayStart(d1));
    let total = 0;
    let day = d0;
    while (day < d1) {
      const { month, day: dom } = civilFromDays(day);
      if (dom === 1) {
        const nextYear = daysFromCivil(year + 1, 1, 1);
        if (month === 1 && nextYear <= d1) {
          total += block.year;
          day = nextYear;
          continue;
        }
        const nextMonth = nextMonthStart(year, month);
        if (nextMonth <= d1) {
          total += block.months[month] ?? 0;
          day = nextMonth;
          continue;
        }
      }
      total += block.days[day - block.firstDay] ?? 0;
      day += 1;
    }
    return total;
  }

  #yearBlock(hours: LocalHours, year: number): YearBlock | null {
    const firstDay = daysFromCivil(year, 1, 1);
    const from = hours.dayStart(firstDay);
    const to = hours.dayStart(daysFromCivil(year + 1, 1, 1));
    for (const offset of hours.offsets.offsetsDuring(from, to)) if (phaseOf(offset) !== hours.phaseMs) return null;
    const days = new Float64Array(daysFromCivil(year + 1, 1, 1) - firstDay);
    for (let h = from; h < to; h += HOUR_MS) {
      const local = h + hours.offsets.offsetAt(h);
      const day = Math.floor(local / DAY_MS) - firstDay;
      days[day] = (days[day] ?? 0) + this.#model.milliGallons(h, local);
    }
    const months = new Float64Array(13);
    let yearTotal = 0;
    days.forEach((value, i) => {
      const { month } = civilFromDays(firstDay + i);
      months[month] = (months[month] ?? 0) + value;
      yearTotal += value;
    });
    return { firstDay, days, months, year: yearTotal };
  }
}
