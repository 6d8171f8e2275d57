import { present } from '../core/errors.js';
import { civilFromDays, DAY_MS, daysFromCivil, HOUR_MS } from './calendar.js';
import type { GroupBy, LocalHours } from './local-hours.js';

/** The buckets of a range: how many, the local day each starts on, and the instant it starts (i = total: the end of the last). */
export interface BucketStarts {
  total: number;
  day: (i: number) => number;
  at: (i: number) => number;
}

/**
 * How many buckets [from, to) touches, and where each starts, without visiting every bucket:
 * local dates, months and years are counted on the calendar. Only a zone that skips a whole
 * date (Samoa on 2011-12-30) makes day buckets fall back to walking.
 */
export function bucketStarts(
  hours: LocalHours,
  groupBy: Exclude<GroupBy, 'hour'>,
  from: number,
  to: number,
): BucketStarts {
  const firstDay = hours.dayOf(hours.floor(from));
  const lastDay = hours.dayOf(hours.floor(to - 1));
  const counted = (total: number, day: (i: number) => number): BucketStarts => ({
    total,
    day,
    at: (i) => hours.dayStart(day(i)),
  });
  if (groupBy === 'day') {
    const offsets = hours.offsets;
    const skipsADate = offsets
      .transitionsDuring(from - DAY_MS, to + DAY_MS)
      .some((t) => offsets.offsetAt(t) - offsets.offsetAt(t - 1) >= DAY_MS - HOUR_MS);
    return skipsADate ? walkedDays(hours, firstDay, to) : counted(lastDay - firstDay + 1, (i) => firstDay + i);
  }
  const a = civilFromDays(firstDay);
  const b = civilFromDays(lastDay);
  if (groupBy === 'year') return counted(b.year - a.year + 1, (i) => daysFromCivil(a.year + i, 1, 1));
  const firstMonth = a.year * 12 + a.month - 1;
  const total = b.year * 12 + b.month - 1 - firstMonth + 1;
  return counted(total, (i) => daysFromCivil(Math.floor((firstMonth + i) / 12), ((firstMonth + i) % 12) + 1, 1));
}

/** The day buckets up to `to`, found by walking from one day's start to the next. */
function walkedDays(hours: LocalHours, firstDay: number, to: number): BucketStarts {
  const days = [firstDay];
  for (let last = firstDay; hours.dayStart(last) < to; days.push(last)) last = hours.dayOf(hours.dayStart(last + 1));
  const day = (i: number): number => present(days[i], 'a walked day');
  return { total: days.length - 1, day, at: (i) => hours.dayStart(day(i)) };
}
