/** Times in a location's time zone (always with the zone named), ids, numbers and durations, in the browser's locale. */

import { PAGE_LOCALE } from './locale.js';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string, style: 'full' | 'time' | 'short' | 'date'): Intl.DateTimeFormat {
  const key = `${timeZone} ${style}`;
  let found = formatters.get(key);
  if (!found) {
    const options: Intl.DateTimeFormatOptions =
      style === 'full'
        ? {
            weekday: 'short',
            month: 'short',
            day: 'numeric',
            year: 'numeric',
            hour: '2-digit',
            minute: '2-digit',
            second: '2-digit',
            timeZoneName: 'short',
          }
        : style === 'time'
          ? { hour: '2-digit', minute: '2-digit', second: '2-digit', timeZoneName: 'short' }
          : style === 'short'
            ? {
                month: 'short',
                day: 'numeric',
                hour: '2-digit',
                minute: '2-digit',
                second: '2-digit',
                timeZoneName: 'short',
              }
            : { month: 'short', day: 'numeric', year: 'numeric' };
    try {
      found = new Intl.DateTimeFormat(PAGE_LOCALE, { ...options, timeZone, hourCycle: 'h23' });
    } catch {
      found = new Intl.DateTimeFormat(PAGE_LOCALE, { ...options, timeZone: 'UTC', hourCycle: 'h23' });
    }
    formatters.set(key, found);
  }
  return found;
}

type Instant = number | string | Date;
const toDate = (at: Instant): Date => (at instanceof Date ? at : new Date(at));

/** "Tue, Mar 10, 2026, 11:30:00 EDT" (en-US), "Di., 10. März 2026, 11:30:00 GMT-4" (de-DE) */
export const fullTime = (at: Instant, timeZone: string): string => formatter(timeZone, 'full').format(toDate(at));
/** "Mar 10, 11:30:00 EDT" */
export const shortTime = (at: Instant, timeZone: string): string => formatter(timeZone, 'short').format(toDate(at));
/** "11:30:00 EDT" */
export const clockTime = (at: Instant, timeZone: string): string => formatter(timeZone, 'time').format(toDate(at));

/** The zone's abbreviation at an instant ("EDT", or "GMT+2" where the language has none). */
export function zoneAbbreviation(at: Instant, timeZone: string): string {
  return (
    formatter(timeZone, 'time')
      .formatToParts(toDate(at))
      .find((p) => p.type === 'timeZoneName')?.value ?? timeZone
  );
}

/** Ids are UUIDs: the first 8 characters tell them apart on one screen. */
export const shortId = (id: string): string => (id.length > 10 ? `${id.slice(0, 8)}…` : id);

/** A UUID standing as a word: not one inside a URL, a path or a query, which must stay whole to be used. */
const UUID_WORD = /(?<![\w/=.-])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![\w-])/gi;

/** A sentence of the sandbox's ("ended lowLeak alert c21f1732-…") with its ids shortened as shortId does. */
export const shortenIds = (text: string): string => text.replace(UUID_WORD, (id) => shortId(id));

export const gallons = (value: number): string =>
  `${value.toLocaleString(PAGE_LOCALE, { maximumFractionDigits: 1 })} gal`;

export const capitalize = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "2 d 3 h", "45 min", "12 s" */
export function duration(totalSeconds: number): string {
  let s = Math.abs(Math.round(totalSeconds));
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  const parts = [d ? `${d} d` : '', h ? `${h} h` : '', m ? `${m} min` : '', s && !d ? `${s} s` : ''].filter(Boolean);
  return parts.join(' ') || '0 s';
}

/** JSON pretty-printed when it parses, the text as it is otherwise. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
