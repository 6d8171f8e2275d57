/**
 * What the server and the presenter view's browser code share: the view's routes, the page's
 * configuration (the `data-config` attribute of #demo), the stream's messages, the story speeds
 * and durations in words. This module imports nothing, so the browser bundle can use it.
 */

/** The presenter view's routes. The audience's are under `watch` + its link's token. */
export const DEMO_PATHS = {
  page: '/demo',
  scene: '/demo/scene',
  events: '/demo/events',
  view: '/demo/view',
  story: '/demo/story',
  links: '/demo/links',
  watch: '/demo/watch/',
} as const;

/** A story's choices of speed: account-clock seconds a second of real time. */
export const STORY_SPEEDS: readonly { speed: number; label: string }[] = [
  { speed: 900, label: 'An hour in 4 seconds' },
  { speed: 2400, label: 'An hour in 1.5 seconds' },
  { speed: 7200, label: 'An hour in half a second' },
  { speed: 86_400, label: 'A day in a second' },
];

/** An hour of the story in a second or two: slow enough to read the chart, quick enough for a meeting. */
export const DEFAULT_STORY_SPEED = 2400;

/** The fastest a story may play: a week a second. */
export const MAX_STORY_SPEED = 604_800;

/** How often the presenter's page moves a playing story on (see src/demo/story.ts). */
export const TICK_MS = 200;

/** The longest a prospect's name may be. */
export const MAX_PROSPECT_LENGTH = 60;

export interface StoryChoice {
  name: string;
  title: string;
  premise: string;
  steps: number;
}

/** The page's configuration: the presenter's (with its CSRF token and choices) or the audience's. */
export type DemoPageConfig =
  | {
      role: 'presenter';
      /** Sent back in X-CSRF-Token with every change. */
      csrfToken: string;
      stories: StoryChoice[];
      locations: { locationId: string; name: string }[];
      /** The prospect's name from the address (?prospect=), to be saved when it differs from the stored one. */
      prospectAsked: string | null;
      /** The story from the address (?story=), chosen in the picker. */
      storyAsked: string | null;
    }
  | {
      role: 'audience';
      /** The link's token: the scene and the stream are under /demo/watch/<token>/. */
      token: string;
      /** When the link ends, in words ("at 6:40 PM UTC, in 4 hours"). */
      expiresText: string;
    };

/** A message of the view's event stream. */
export type DemoMessage =
  /** First on every (re)connection. */
  | { type: 'hello' }
  | { type: 'scene'; scene: unknown }
  /** The link was revoked or ended, or the presenter signed out: the page says so and stops. */
  | { type: 'gone'; reason: string };

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "2 hours 10 minutes", "45 minutes", "less than a minute": how long, in words. */
export function spokenDuration(ms: number): string {
  const minutes = Math.floor(Math.max(0, ms) / 60_000);
  if (minutes < 1) return 'less than a minute';
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const rest = minutes % 60;
  if (days > 0) return [plural(days, 'day'), hours > 0 ? plural(hours, 'hour') : ''].filter(Boolean).join(' ');
  return [hours > 0 ? plural(hours, 'hour') : '', rest > 0 ? plural(rest, 'minute') : ''].filter(Boolean).join(' ');
}

const formats = new Map<string, Intl.DateTimeFormat>();

function format(timeZone: string, options: Intl.DateTimeFormatOptions, key: string): Intl.DateTimeFormat {
  let found = formats.get(`${key} ${timeZone}`);
  if (!found) {
    // US English, the view's language, whatever the browser's: "2:14 AM".
    found = new Intl.DateTimeFormat('en-US', { ...options, timeZone });
    formats.set(`${key} ${timeZone}`, found);
  }
  return found;
}

/** "2:14 AM" in the zone. */
export const clockTime = (ms: number, timeZone: string): string =>
  format(timeZone, { hour: 'numeric', minute: '2-digit' }, 'clock').format(ms);

/** "Tuesday 2:14 AM" in the zone. */
export const dayAndTime = (ms: number, timeZone: string): string =>
  format(timeZone, { weekday: 'long', hour: 'numeric', minute: '2-digit' }, 'day').format(ms).replace(' at ', ' ');
