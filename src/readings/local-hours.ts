import { civilFromDays, DAY_MS, daysFromCivil, HOUR_MS, LocalIsoFormatter } from './calendar.js';
import type { ZoneOffsets } from './zone.js';

export type GroupBy = 'hour' | 'day' | 'month' | 'year';

/**
 * The hours of a location: one-hour intervals of real time that start when the local clock
 * shows a whole hour. In zones with whole-hour offsets they start at :00 UTC; in India
 * (+05:30) at :30 UTC; in Nepal (+05:45) at :15 UTC. `phaseMs` is that start within the UTC hour.
 *
 * Every hour belongs to the local day (and month, year) shown by the clock when it starts.
 * So a day is the run of hours from one local midnight to the next: 23 hours on the day
 * clocks spring forward, 25 when they fall back; and every bucket is a whole number of hours.
 */
export class LocalHours {
  readonly offsets: ZoneOffsets;
  readonly phaseMs: number;
  readonly #formatter = new LocalIsoFormatter();

  constructor(offsets: ZoneOffsets, phaseMs: number) {
    this.offsets = offsets;
    this.phaseMs = phaseMs;
  }

  /** Start of the hour containing t. */
  floor(t: number): number {
    return t - mod(t - this.phaseMs, HOUR_MS);
  }

  /** The first hour start at or after t. */
  ceil(t: number): number {
    const floor = this.floor(t);
    return floor === t ? t : floor + HOUR_MS;
  }

  /** The local day number (days since 1970-01-01 on the local calendar) of the hour starting at h. */
  dayOf(h: number): number {
    return Math.floor((h + this.offsets.offsetAt(h)) / DAY_MS);
  }

  /** The first hour of local day `day`: local midnight, or the first hour after it when midnight is skipped. */
  dayStart(day: number): number {
    const midnight = day * DAY_MS;
    let h = this.ceil(midnight - this.offsets.offsetAt(midnight - this.offsets.offsetAt(midnight)));
    // The guess is off only near an offset change; local days never run backwards, so walk.
    for (let i = 0; i < 48 && this.dayOf(h) < day; i++) h += HOUR_MS;
    for (let i = 0; i < 48 && this.dayOf(h - HOUR_MS) >= day; i++) h -= HOUR_MS;
    return h;
  }

  /** The start of the bucket containing the hour starting at h. */
  bucketStart(groupBy: GroupBy, h: number): number {
    if (groupBy === 'hour') return h;
    const day = this.dayOf(h);
    if (groupBy === 'day') return this.dayStart(day);
    const { year, month } = civilFromDays(day);
    return this.dayStart(daysFromCivil(year, groupBy === 'month' ? month : 1, 1));
  }

  /** ISO 8601 of an instant with the local offset of that instant. */
  format(t: number): string {
    return this.#formatter.format(t, this.offsets.offsetAt(t));
  }
}

export const mod = (a: number, n: number): number => ((a % n) + n) % n;

/** Where the hours of an offset start within the UTC hour. */
export const phaseOf = (offsetMs: number): number => mod(-offsetMs, HOUR_MS);

export class UnsupportedTimeZoneError extends Error {
  constructor(
    readonly zone: string,
    readonly offsets: number[],
  ) {
    super(`time zone ${zone} mixes UTC offsets whose minutes differ`);
  }
}

/**
 * The local hours of a zone over [fromMs, toMs), plus whatever bucket starts before it.
 * Throws UnsupportedTimeZoneError when the zone's offsets in that span do not share their
 * minutes (Australia/Lord_Howe's half-hour daylight saving; Caracas in 2016): local hours
 * would then not all be one hour long.
 */
export function localHoursFor(offsets: ZoneOffsets, fromMs: number, toMs: number, groupBy: GroupBy): LocalHours {
  const hours = new LocalHours(offsets, phaseOf(offsets.offsetAt(fromMs)));
  const spanStart = Math.min(fromMs, hours.bucketStart(groupBy, hours.floor(fromMs))) - HOUR_MS;
  const seen = [...offsets.offsetsDuring(spanStart, Math.max(toMs, fromMs) + HOUR_MS)];
  if (new Set(seen.map(phaseOf)).size > 1) throw new UnsupportedTimeZoneError(offsets.zone, seen);
  return hours;
}
