import type { AlertType } from '../store/data.js';

/**
 * The presenter view's words: what a prospect who is not an engineer reads. No ids, no alert
 * type names as the API spells them, units spelled out, times as "2:14 AM" in the location's
 * zone. Pure functions of their arguments.
 */

type PeakStatus = 'too_high' | 'too_low' | null;

export { clockTime, dayAndTime } from './page-config.js';

const hourFormats = new Map<string, Intl.DateTimeFormat>();

/** "2 AM": an hour of the chart's axis. */
export function hourLabel(ms: number, timeZone: string): string {
  let format = hourFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { hour: 'numeric', timeZone });
    hourFormats.set(timeZone, format);
  }
  return format.format(ms);
}

/** The zone as people say it: "Pacific time", "Eastern time", else its long name ("Central European Standard Time"). */
export function zoneName(ms: number, timeZone: string): string {
  const name =
    new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longGeneric' })
      .formatToParts(ms)
      .find((p) => p.type === 'timeZoneName')?.value ?? timeZone;
  return name.endsWith(' Time') ? `${name.slice(0, -' Time'.length)} time` : name;
}

/** The alert as a homeowner would name it. */
export function alertName(type: AlertType, peakStatus: PeakStatus): string {
  switch (type) {
    case 'lowLeak':
      return 'Slow leak';
    case 'highLeak':
      return 'Major leak';
    case 'awayLeak':
      return 'Leak while away';
    case 'ambientTemp':
      return peakStatus === 'too_high' ? 'Room too warm' : 'Freezing risk';
    case 'waterTemp':
      return peakStatus === 'too_low' ? 'Water too cold' : 'Water too hot';
    case 'humidity':
      return peakStatus === 'too_low' ? 'Air too dry' : 'Humidity too high';
  }
}

export const isLeak = (type: AlertType): boolean => type === 'lowLeak' || type === 'highLeak' || type === 'awayLeak';

/** 0.4 → "0.4", 6.5 → "6.5", 34 → "34". */
export const number = (value: number): string =>
  value.toLocaleString('en-US', { maximumFractionDigits: value < 10 ? 1 : 0 });

/** "1.2 gallons per minute" */
export const gallonsPerMinute = (gpm: number): string =>
  `${number(gpm)} ${gpm === 1 ? 'gallon' : 'gallons'} per minute`;

/** "Acme's", "Acme Widgets'", or "your app's" without a name. */
export const possessive = (name: string): string =>
  name === '' ? "your app's" : /s$/i.test(name) ? `${name}'` : `${name}'s`;

/** The phone's notification of an alert in force: its title, and its text around a live duration (how long so far). */
export function notificationOf(
  alert: { type: AlertType; peakValue: number; peakStatus: PeakStatus },
  place: string,
): { title: string; before: string; after: string } {
  const peak = number(alert.peakValue);
  switch (alert.type) {
    case 'lowLeak':
      return { title: 'Possible leak', before: `Possible leak at ${place}: water has been running for `, after: '.' };
    case 'highLeak':
      return {
        title: 'Major leak',
        before: `Major leak at ${place}: about ${gallonsPerMinute(alert.peakValue)} for `,
        after: '. Turn off the water main.',
      };
    case 'awayLeak':
      return {
        title: 'Water running while you are away',
        before: `Water is running at ${place} while nobody is home, for `,
        after: '.',
      };
    case 'ambientTemp':
      return alert.peakStatus === 'too_high'
        ? { title: 'Room too warm', before: `The room at ${place} is at ${peak} degrees Fahrenheit, for `, after: '.' }
        : {
            title: 'Freezing risk',
            before: `Freezing risk at ${place}: the room is down to ${peak} degrees Fahrenheit, for `,
            after: '. Pipes can burst.',
          };
    case 'waterTemp':
      return alert.peakStatus === 'too_low'
        ? { title: 'Water too cold', before: `The water at ${place} is ${peak} degrees Fahrenheit, for `, after: '.' }
        : {
            title: 'Water too hot',
            before: `The water at ${place} is ${peak} degrees Fahrenheit, hot enough to scald, for `,
            after: '.',
          };
    case 'humidity':
      return alert.peakStatus === 'too_low'
        ? { title: 'Air too dry', before: `Humidity at ${place} is down to ${peak} percent, for `, after: '.' }
        : {
            title: 'Humidity too high',
            before: `Humidity at ${place} is ${peak} percent, a risk of mould, for `,
            after: '.',
          };
  }
}

/** What a partner's endpoint answered, in words: "answered 500", "did not answer in time". */
export function answerInWords(attempt: { statusCode: number | null; error: string | null } | undefined): string {
  if (!attempt) return 'has not answered yet';
  if (attempt.statusCode !== null) return `answered ${attempt.statusCode}`;
  return attempt.error !== null && /timed? ?out|abort/i.test(attempt.error)
    ? 'did not answer in time'
    : 'could not be reached';
}
