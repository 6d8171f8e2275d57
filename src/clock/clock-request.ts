import { z } from 'zod';

import { AppError, invalidParameter } from '../core/errors.js';
import { jsonObject, onAnyObject, quotedList } from '../http/schemas.js';

/** What a POST /sandbox/clock asks for: back to real time, or an optional freeze change then an optional move. */
export interface ClockChange {
  realTime?: true;
  frozen?: boolean;
  move?: { to: 'instant'; ms: number } | { to: 'later'; ms: number };
}

export const MAX_ADVANCE_SECONDS = 10 * 365 * 24 * 3600;
// A clock set outside these years is almost always a unit mistake (milliseconds for seconds).
const EARLIEST_MS = Date.UTC(2000, 0, 1);
const LATEST_MS = Date.UTC(2100, 0, 1);
const ISO_WITH_ZONE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/** Whether the text is an ISO 8601 date-time with a zone whose date and time exist (Date.parse rolls 30 February over to March). */
function isRealIsoInstant(text: string): boolean {
  const match = ISO_WITH_ZONE.exec(text);
  if (!match || Number.isNaN(Date.parse(text))) return false;
  // A group that took no part is undefined, whatever the type of slice says.
  const [year, month, day, hour, minute, second] = match.slice(1).map((v: string | undefined) => Number(v ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day && hour < 24 && minute < 60 && second < 60;
}

const EXAMPLE = '{"advanceSeconds": 3600}, {"now": "2026-03-10T15:30:00Z"}, {"frozen": true} or {"realTime": true}';

function parseNow(value: unknown): number {
  let ms: number;
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      throw invalidParameter('now', 'now must be an ISO 8601 date-time or a number of epoch seconds');
    ms = Math.round(value * 1000);
    if (ms >= LATEST_MS && value >= EARLIEST_MS) {
      throw invalidParameter(
        'now',
        `now as a number is epoch seconds, and ${value} looks like milliseconds; divide it by 1000`,
      );
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
    throw invalidParameter(
      'now',
      `now must be an ISO 8601 date-time string or a number of epoch seconds; got ${JSON.stringify(value)}`,
    );
  }
  if (ms < EARLIEST_MS || ms >= LATEST_MS) {
    throw invalidParameter('now', `now must be from the year 2000 to the year 2099; got ${new Date(ms).toISOString()}`);
  }
  return ms;
}

/** A parse error of one field as a zod issue with the same message. */
function asIssue<T>(read: () => T, ctx: z.RefinementCtx): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    ctx.addIssue({ code: 'custom', message: error.message });
    return z.NEVER;
  }
}

/**
 * The body of POST /sandbox/clock. One intent (`now`, `frozen` or `advanceSeconds`), or
 * `frozen` together with one of the two moves; or `realTime` on its own.
 */
export const ClockChangeBody = jsonObject(
  {
    realTime: z
      .unknown()
      .superRefine((value, ctx) => {
        if (value !== true)
          ctx.addIssue({
            code: 'custom',
            message: `realTime must be true (back to the wall clock: running, no offset); got ${JSON.stringify(value)}`,
          });
      })
      .optional()
      .meta({ const: true, description: 'Back to the wall clock: running, no offset. On its own.' }),
    frozen: z
      .unknown()
      .superRefine((value, ctx) => {
        if (typeof value !== 'boolean')
          ctx.addIssue({ code: 'custom', message: `frozen must be true or false; got ${JSON.stringify(value)}` });
      })
      .transform((value) => value as boolean)
      .optional()
      .meta({
        type: 'boolean',
        description: 'Freeze the clock at its instant (true) or let it run from there (false).',
      }),
    now: z
      .unknown()
      .transform((value, ctx) => asIssue(() => parseNow(value), ctx))
      .optional()
      .meta({
        type: ['string', 'number'],
        description:
          'Go to this instant: ISO 8601 with a time zone, or epoch seconds; from 2000 to 2099. Moving forward runs the work due on the way (scenario steps, webhook retries) at its own instants.',
        examples: ['2026-03-10T15:30:00Z'],
      }),
    advanceSeconds: z
      .unknown()
      .superRefine((value, ctx) => {
        if (typeof value !== 'number' || !Number.isFinite(value)) {
          ctx.addIssue({
            code: 'custom',
            message: `advanceSeconds must be a number of seconds; got ${JSON.stringify(value)}`,
          });
        } else if (value <= 0) {
          ctx.addIssue({
            code: 'custom',
            message: `advanceSeconds must be more than 0: the clock moves forward only; to go back in time set {"now": "<ISO 8601>"}; got ${value}`,
          });
        } else if (value > MAX_ADVANCE_SECONDS) {
          ctx.addIssue({
            code: 'custom',
            message: `advanceSeconds must be at most ${MAX_ADVANCE_SECONDS} (10 years); got ${value}`,
          });
        }
      })
      .transform((value) => value as number)
      .optional()
      .meta({
        type: 'number',
        exclusiveMinimum: 0,
        maximum: MAX_ADVANCE_SECONDS,
        description: 'Move forward this many seconds, running the work due on the way.',
      }),
  },
  {
    notObject: `The request body must be a JSON object such as ${EXAMPLE}`,
    unknownKeys: (keys) => `The clock takes only now, frozen, advanceSeconds and realTime; remove ${quotedList(keys)}`,
  },
)
  .superRefine(
    (body, ctx) => {
      const keys = Object.keys(body).filter((k) => body[k as keyof typeof body] !== undefined);
      if (keys.includes('realTime')) {
        const other = keys.find((k) => k !== 'realTime');
        if (other !== undefined)
          ctx.addIssue({
            code: 'custom',
            path: [other],
            message: `realTime goes back to the wall clock on its own; remove ${JSON.stringify(other)}`,
          });
        return;
      }
      if (keys.length === 0)
        ctx.addIssue({
          code: 'custom',
          path: [],
          message: `Say what to do with the clock: give now, frozen, advanceSeconds or realTime, e.g. ${EXAMPLE}`,
        });
      else if (keys.includes('now') && keys.includes('advanceSeconds')) {
        ctx.addIssue({
          code: 'custom',
          path: ['advanceSeconds'],
          message: 'Give either now (go to an instant) or advanceSeconds (move forward), not both',
        });
      }
    },
    // These rules are about which fields are there: reported before what is wrong inside one.
    onAnyObject,
  )
  .transform((body): ClockChange => {
    if (body.realTime !== undefined) return { realTime: true };
    const change: ClockChange = {};
    if (body.frozen !== undefined) change.frozen = body.frozen;
    if (body.now !== undefined) change.move = { to: 'instant', ms: body.now };
    if (body.advanceSeconds !== undefined) change.move = { to: 'later', ms: Math.round(body.advanceSeconds * 1000) };
    return change;
  });

export const CLOCK_CHANGE_EXAMPLE = { advanceSeconds: 3600 };
