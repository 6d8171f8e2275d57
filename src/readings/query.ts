import { z } from 'zod';

import { AppError, invalidParameter } from '../core/errors.js';
import { parseInput } from '../http/operation.js';
import { pagingQuery, queryText } from '../http/schemas.js';
import { DAY_MS, daysFromCivil, daysInMonth, formatLocalIso, HOUR_MS, MINUTE_MS } from './calendar.js';
import type { GroupBy } from './local-hours.js';

// SANDBOX: production's default perPage, range limit and handling of a future startTime are
// unknown; these are the sandbox's documented choices (docs/readings.md).
/**
 * Production documents no default perPage for readings. The one default it shows for this
 * shared list envelope is 50 (a captured GET /v1/locations), so readings use it too. The
 * official Node client always sends perPage=100, so it never sees the default.
 */
export const DEFAULT_READINGS_PER_PAGE = 50;

/**
 * The longest range one request may span. A ten-year roll-up is a common ask (and a
 * benchmark case); twenty years leaves room and keeps a request's work bounded.
 */
export const MAX_RANGE_DAYS = 7305;

export const GROUP_BY_VALUES: readonly GroupBy[] = ['hour', 'day', 'month', 'year'];

export interface ReadingsQuery {
  startMs: number;
  /** null: not given (defaults to the account's now). */
  endMs: number | null;
  groupBy: GroupBy;
  page: number;
  perPage: number;
}

const TIME_FORMS =
  'ISO 8601 with a UTC offset (2026-01-01T00:00:00Z, 2026-01-01T00:00:00.000-05:00) or epoch seconds (1767225600)';

/** An instant parameter: the text as parseTime reads it; its errors become the issue's message. */
const instant = (name: string, description: string) =>
  queryText(name)
    .transform((text, ctx) => {
      // An empty startTime counts as missing (the required rule says what to send).
      if (text === '') return undefined;
      try {
        return parseTime(name, text);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        ctx.addIssue({ code: 'custom', message: error.message });
        return z.NEVER;
      }
    })
    .meta({ description: `${description}: ${TIME_FORMS}.`, examples: ['2026-03-01T00:00:00Z', '1772323200'] });

/**
 * The query of GET .../readings/water-usage. Every problem is a 400 naming its parameter;
 * parameters are checked in the order listed, then endTime against startTime.
 */
export const ReadingsQuerySchema = z
  .looseObject({
    startTime: instant('startTime', 'Start of the range (required)').optional(),
    endTime: instant('endTime', "End of the range (default: the account clock's now; never past it)").optional(),
    groupBy: queryText('groupBy')
      .superRefine((text, ctx) => {
        if (!(GROUP_BY_VALUES as readonly string[]).includes(text)) {
          ctx.addIssue({
            code: 'custom',
            message: `groupBy must be one of ${GROUP_BY_VALUES.join(', ')} (default hour); got ${JSON.stringify(text)}`,
          });
        }
      })
      .transform((text) => text as GroupBy)
      .optional()
      .meta({
        enum: [...GROUP_BY_VALUES],
        default: 'hour',
        description: "Bucket size; buckets start on the location's local hour, day, month or year.",
      }),
    ...pagingQuery(DEFAULT_READINGS_PER_PAGE),
  })
  .superRefine(
    (query, ctx) => {
      // A startTime that failed its own check is reported by that check.
      if (query.startTime !== undefined) return;
      ctx.addIssue({
        code: 'custom',
        path: ['startTime'],
        message: `startTime is required: the start of the range, as ${TIME_FORMS}${nearMiss(query, 'startTime')}`,
      });
    },
    // Checked even when other parameters are wrong: a missing startTime is reported first.
    { when: () => true },
  )
  .superRefine((query, ctx) => {
    const { startTime, endTime } = query;
    if (startTime !== undefined && endTime !== undefined && endTime < startTime) {
      ctx.addIssue({
        code: 'custom',
        path: ['endTime'],
        message: `endTime must not be before startTime; got startTime ${iso(startTime)} and endTime ${iso(endTime)}`,
      });
    }
  })
  .transform((query): ReadingsQuery => ({
    startMs: query.startTime ?? 0,
    endMs: query.endTime ?? null,
    groupBy: query.groupBy ?? 'hour',
    page: query.page ?? 1,
    perPage: query.perPage ?? DEFAULT_READINGS_PER_PAGE,
  }))
  .meta({ required: ['startTime'] });

/** Parses and validates the query of GET .../readings/water-usage; every problem is a 400 naming its parameter. */
export function parseReadingsQuery(query: Record<string, unknown>): ReadingsQuery {
  return parseInput(ReadingsQuerySchema, query, 'query');
}

/**
 * The range [from, to) to answer: endTime defaults to the account's now and never reaches
 * past it. Throws the range rules' 400s.
 */
export function resolveRange(query: ReadingsQuery, nowMs: number): { fromMs: number; toMs: number } {
  if (query.endMs === null && query.startMs > nowMs) {
    throw invalidParameter(
      'startTime',
      `startTime ${iso(query.startMs)} is after the account clock's now (${iso(nowMs)}), which is the default endTime; readings exist only up to now`,
    );
  }
  const toMs = Math.min(query.endMs ?? nowMs, nowMs);
  const days = (toMs - query.startMs) / DAY_MS;
  if (days > MAX_RANGE_DAYS) {
    throw invalidParameter(
      'startTime',
      `the range from startTime to endTime (or now, if earlier) must be at most ${MAX_RANGE_DAYS} days (20 years); got ${Math.ceil(days)} days. Ask for a shorter range, or several`,
    );
  }
  return { fromMs: query.startMs, toMs: Math.max(toMs, query.startMs) };
}

const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+\- ]\d{2}(?::?\d{2})?)?$/;
const EPOCH_SECONDS = /^(\d{1,15})(?:\.(\d{1,9}))?$/;

/** An instant (ms since epoch) from ISO 8601 with a UTC offset, or from epoch seconds. */
export function parseTime(name: string, text: string): number {
  const epoch = EPOCH_SECONDS.exec(text);
  if (epoch) {
    const seconds = Number(epoch[1]);
    // 10^11 s is the year 5138: such a value is almost surely milliseconds.
    if (seconds >= 1e11)
      throw invalidParameter(
        name,
        `${name} looks like epoch milliseconds; send epoch seconds (1767225600); got ${JSON.stringify(text)}`,
      );
    return seconds * 1000 + fractionMs(epoch[2]);
  }
  const m = ISO_8601.exec(text);
  if (!m) throw invalidParameter(name, `${name} must be ${TIME_FORMS}; got ${JSON.stringify(text)}`);
  const [, y, mo, d, h, mi, s, fraction, zone] = m;
  if (zone === undefined) {
    throw invalidParameter(
      name,
      `${name} needs a UTC offset: add Z or an offset such as -05:00 (2026-01-01T00:00:00Z); got ${JSON.stringify(text)}`,
    );
  }
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s ?? 0);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) {
    throw invalidParameter(
      name,
      `${name} is not a real date and time (months 01-12, days of that month, hours 00-23, minutes and seconds 00-59); got ${JSON.stringify(text)}`,
    );
  }
  let offsetMs = 0;
  if (zone !== 'Z') {
    // A "+" sent unencoded arrives as a space (the official Python client does this): read it as "+".
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const offsetHours = Number(digits.slice(0, 2));
    const offsetMinutes = Number(digits.slice(2) || '0');
    if (offsetHours > 23 || offsetMinutes > 59) {
      throw invalidParameter(
        name,
        `${name} has an impossible UTC offset (at most ±23:59); got ${JSON.stringify(text)}`,
      );
    }
    offsetMs = sign * (offsetHours * HOUR_MS + offsetMinutes * MINUTE_MS);
  }
  const local =
    daysFromCivil(year, month, day) * DAY_MS +
    hour * HOUR_MS +
    minute * MINUTE_MS +
    second * 1000 +
    fractionMs(fraction);
  return local - offsetMs;
}

/** Milliseconds of a decimal fraction of a second (digits beyond the third are dropped). */
const fractionMs = (digits: string | undefined): number =>
  digits === undefined ? 0 : Number(digits.slice(0, 3).padEnd(3, '0'));

const iso = (ms: number): string => formatLocalIso(ms, 0).replace('+00:00', 'Z');

/** ` (found "start_time" ...)` when a parameter differs from the expected name only in case, `_` or `-`. */
function nearMiss(query: Record<string, unknown>, expected: string): string {
  const squash = (s: string): string => s.toLowerCase().replace(/[-_]/g, '');
  const found = Object.keys(query).find((k) => k !== expected && squash(k) === squash(expected));
  return found === undefined
    ? ''
    : `; found ${JSON.stringify(found)}, but parameter names are case-sensitive: use ${expected}`;
}
