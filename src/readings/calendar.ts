import { present } from '../core/errors.js';

/**
 * Civil-calendar arithmetic on integers: day numbers (days since 1970-01-01) to and from
 * year/month/day, with no Date objects and no local-time getters. The algorithms are
 * Howard Hinnant's `days_from_civil` / `civil_from_days` (proleptic Gregorian calendar).
 */

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

export interface CivilDate {
  year: number;
  /** 1-12 */
  month: number;
  /** 1-31 */
  day: number;
}

/** Days since 1970-01-01 of a civil date. */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = month > 2 ? month - 3 : month + 9;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The civil date of a day number. */
export function civilFromDays(days: number): CivilDate {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** The civil year of a day number (cheaper than civilFromDays when only the year is needed). */
export function yearOfDays(days: number): number {
  return civilFromDays(days).year;
}

/** 0 = Sunday ... 6 = Saturday; 1970-01-01 was a Thursday. */
export function weekdayOfDays(days: number): number {
  return (((days + 4) % 7) + 7) % 7;
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  return month === 2 ? (isLeapYear(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** The first day (day number) of the month after the one containing `days`. */
export function nextMonthStart(year: number, month: number): number {
  return month === 12 ? daysFromCivil(year + 1, 1, 1) : daysFromCivil(year, month + 1, 1);
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));

function pad4(n: number): string {
  if (n >= 0 && n < 10000) return String(n).padStart(4, '0');
  return (n < 0 ? '-' : '+') + String(Math.abs(n)).padStart(6, '0');
}

/** `+05:30`, `-04:00`, `+00:00` for an offset in ms (seconds are dropped: modern offsets have none). */
export function formatOffset(offsetMs: number): string {
  const sign = offsetMs < 0 ? '-' : '+';
  const minutes = Math.floor(Math.abs(offsetMs) / MINUTE_MS);
  return `${sign}${pad2(Math.floor(minutes / 60))}:${pad2(minutes % 60)}`;
}

/** ISO 8601 of an instant as seen with the given UTC offset, e.g. `2018-11-19T10:00:00-05:00`. */
export function formatLocalIso(instantMs: number, offsetMs: number): string {
  const local = instantMs + offsetMs;
  const days = Math.floor(local / DAY_MS);
  const { year, month, day } = civilFromDays(days);
  let rest = local - days * DAY_MS;
  const hour = Math.floor(rest / HOUR_MS);
  rest -= hour * HOUR_MS;
  const minute = Math.floor(rest / MINUTE_MS);
  const second = Math.floor((rest - minute * MINUTE_MS) / 1000);
  return `${pad4(year)}-${pad2(month)}-${pad2(day)}T${pad2(hour)}:${pad2(minute)}:${pad2(second)}${formatOffset(offsetMs)}`;
}

const TWO_DIGITS = Array.from({ length: 100 }, (_, i) => pad2(i));
const twoDigits = (n: number): string => present(TWO_DIGITS[n], `the two digits of ${n}`);

/**
 * formatLocalIso for many instants in a row (bucket times): the date part is kept from the
 * previous call while the local day is the same, and offset strings are kept per offset.
 */
export class LocalIsoFormatter {
  #day = Number.NaN;
  #datePart = '';
  readonly #offsets = new Map<number, string>();

  format(instantMs: number, offsetMs: number): string {
    const local = instantMs + offsetMs;
    const days = Math.floor(local / DAY_MS);
    if (days !== this.#day) {
      const { year, month, day } = civilFromDays(days);
      this.#datePart = `${pad4(year)}-${twoDigits(month)}-${twoDigits(day)}T`;
      this.#day = days;
    }
    let offset = this.#offsets.get(offsetMs);
    if (offset === undefined) this.#offsets.set(offsetMs, (offset = formatOffset(offsetMs)));
    let rest = local - days * DAY_MS;
    const hour = Math.floor(rest / HOUR_MS);
    rest -= hour * HOUR_MS;
    const minute = Math.floor(rest / MINUTE_MS);
    const second = Math.floor((rest - minute * MINUTE_MS) / 1000);
    return `${this.#datePart}${twoDigits(hour)}:${twoDigits(minute)}:${twoDigits(second)}${offset}`;
  }
}

/** Parses a YYYY-MM-DD date (already validated by the fixture schema) to its day number. */
export function daysOfIsoDate(date: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) throw new Error(`not a YYYY-MM-DD date: ${date}`);
  return daysFromCivil(Number(match[1]), Number(match[2]), Number(match[3]));
}
