import { AppError, invalidParameter } from '../core/errors.js';

/** What a POST /sandbox/clock asks for: back to real time, or an optional freeze change then an optional move. */
export interface ClockChange {
  realTime?: true;
  frozen?: boolean;
  move?: { to: 'instant'; ms: number } | { to: 'later'; ms: number };
}

const KEYS = ['now', 'frozen', 'advanceSeconds', 'realTime'];
export const MAX_ADVANCE_SECONDS = 10 * 365 * 24 * 3600;
// A clock set outside these years is almost always a unit mistake (milliseconds for seconds).
const EARLIEST_MS = Date.UTC(2000, 0, 1);
const LATEST_MS = Date.UTC(2100, 0, 1);
const ISO_WITH_ZONE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/** Whether the text is an ISO 8601 date-time with a zone whose date and time exist (Date.parse rolls 30 February over to March). */
function isRealIsoInstant(text: string): boolean {
  const match = ISO_WITH_ZONE.exec(text);
  if (!match || Number.isNaN(Date.parse(text))) return false;
  const [year, month, day, hour, minute, second] = match.slice(1).map((v) => Number(v ?? 0)) as [number, number, number, number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day && hour < 24 && minute < 60 && second < 60;
}

const EXAMPLE = '{"advanceSeconds": 3600}, {"now": "2026-03-10T15:30:00Z"}, {"frozen": true} or {"realTime": true}';

function parseNow(value: unknown): number {
  let ms: number;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw invalidParameter('now', 'now must be an ISO 8601 date-time or a number of epoch seconds');
    ms = Math.round(value * 1000);
    if (ms >= LATEST_MS && value >= EARLIEST_MS) {
      throw invalidParameter('now', `now as a number is epoch seconds, and ${value} looks like milliseconds; divide it by 1000`);
    }
  } else if (typeof value === 'string') {
    if (!isRealIsoInstant(value)) {
      throw invalidParameter(
        'now',
        `now must be an ISO 8601 date-time with a time zone, such as "2026-03-10T15:30:00Z" or "2026-03-10T10:30:00-05:00"; got ${JSON.stringify(value)}`,
      );
    }
    ms = Date.parse(value);
  } else {
    throw invalidParameter('now', `now must be an ISO 8601 date-time string or a number of epoch seconds; got ${JSON.stringify(value)}`);
  }
  if (ms < EARLIEST_MS || ms >= LATEST_MS) {
    throw invalidParameter('now', `now must be from the year 2000 to the year 2099; got ${new Date(ms).toISOString()}`);
  }
  return ms;
}

/**
 * Validates the body of POST /sandbox/clock. One intent (`now`, `frozen` or `advanceSeconds`),
 * or `frozen` together with one of the two moves.
 */
export function parseClockChange(body: unknown): ClockChange {
  if (body === undefined) {
    throw new AppError(415, 'unsupported_media_type', `The request body must be JSON with Content-Type: application/json, e.g. ${EXAMPLE}`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidParameter('body', `The request body must be a JSON object such as ${EXAMPLE}`);
  }
  const unknown = Object.keys(body).filter((k) => !KEYS.includes(k));
  if (unknown.length > 0) {
    throw invalidParameter(unknown[0] ?? 'body', `The clock takes only now, frozen, advanceSeconds and realTime; remove ${unknown.map((k) => JSON.stringify(k)).join(', ')}`);
  }
  const { now, frozen, advanceSeconds, realTime } = body as { now?: unknown; frozen?: unknown; advanceSeconds?: unknown; realTime?: unknown };
  if (realTime !== undefined) {
    if (realTime !== true) throw invalidParameter('realTime', `realTime must be true (back to the wall clock: running, no offset); got ${JSON.stringify(realTime)}`);
    const other = Object.keys(body).find((k) => k !== 'realTime');
    if (other !== undefined) throw invalidParameter(other, `realTime goes back to the wall clock on its own; remove ${JSON.stringify(other)}`);
    return { realTime: true };
  }
  if (now === undefined && frozen === undefined && advanceSeconds === undefined) {
    throw invalidParameter('body', `Say what to do with the clock: give now, frozen, advanceSeconds or realTime, e.g. ${EXAMPLE}`);
  }
  if (now !== undefined && advanceSeconds !== undefined) {
    throw invalidParameter('advanceSeconds', 'Give either now (go to an instant) or advanceSeconds (move forward), not both');
  }
  const change: ClockChange = {};
  if (frozen !== undefined) {
    if (typeof frozen !== 'boolean') throw invalidParameter('frozen', `frozen must be true or false; got ${JSON.stringify(frozen)}`);
    change.frozen = frozen;
  }
  if (now !== undefined) change.move = { to: 'instant', ms: parseNow(now) };
  if (advanceSeconds !== undefined) {
    if (typeof advanceSeconds !== 'number' || !Number.isFinite(advanceSeconds)) {
      throw invalidParameter('advanceSeconds', `advanceSeconds must be a number of seconds; got ${JSON.stringify(advanceSeconds)}`);
    }
    if (advanceSeconds <= 0) {
      throw invalidParameter(
        'advanceSeconds',
        `advanceSeconds must be more than 0: the clock moves forward only; to go back in time set {"now": "<ISO 8601>"}; got ${advanceSeconds}`,
      );
    }
    if (advanceSeconds > MAX_ADVANCE_SECONDS) {
      throw invalidParameter('advanceSeconds', `advanceSeconds must be at most ${MAX_ADVANCE_SECONDS} (10 years); got ${advanceSeconds}`);
    }
    change.move = { to: 'later', ms: Math.round(advanceSeconds * 1000) };
  }
  return change;
}
