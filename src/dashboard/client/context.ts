import type { ClockState, Location } from '../api-types.js';
import type { AlertTypeOption, PageConfig } from '../page-config.js';
import { describeError, SignedOut, type Api } from './api.js';
import { byId } from './dom.js';
import { sentence } from './widgets.js';

/** The parts of the page that reload their data when told (by live events, actions or the fallback poll). */
export type PanelName =
  | 'clock'
  | 'locations'
  | 'alerts'
  | 'usage'
  | 'runs'
  | 'subscriptions'
  | 'deliveries'
  | 'journal'
  | 'inspector'
  | 'readiness'
  | 'connectedApps';

/**
 * The account's virtual clock as the page knows it: the last state the sandbox sent, moved on
 * by the browser's monotonic clock while it runs (performance.now never jumps with the wall clock).
 */
export class VirtualClock {
  #state: ClockState | null = null;
  #baseMs = 0;
  #at = 0;

  set(state: ClockState): void {
    this.#state = state;
    this.#baseMs = Date.parse(state.now);
    this.#at = performance.now();
  }

  get state(): ClockState | null {
    return this.#state;
  }

  /** The account's now in ms, or null before the first answer. */
  nowMs(): number | null {
    if (!this.#state) return null;
    return this.#state.frozen ? this.#baseMs : this.#baseMs + (performance.now() - this.#at);
  }
}

/** How long a success message stays in the status line. */
const SUCCESS_SHOWN_MS = 10_000;

/** What every panel shares: the API client, the configuration, the selected location and the clock. */
export class Context {
  readonly clock = new VirtualClock();
  readonly locations = new Map<string, Location>();
  readonly alertTypes: ReadonlyMap<string, AlertTypeOption>;
  #selected: string;
  readonly #selectListeners: (() => void)[] = [];
  #flashTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    readonly api: Api,
    readonly config: PageConfig,
    readonly refresh: (...panels: PanelName[]) => void,
  ) {
    this.alertTypes = new Map(config.alertTypes.map((t) => [t.type, t]));
    this.#selected = config.locations[0]?.locationId ?? '';
    byId('flash-dismiss').addEventListener('click', () => this.dismiss());
  }

  get selected(): string {
    return this.#selected;
  }

  select(locationId: string): void {
    if (locationId === this.#selected) return;
    this.#selected = locationId;
    for (const listener of this.#selectListeners) listener();
  }

  onSelect(listener: () => void): void {
    this.#selectListeners.push(listener);
  }

  /**
   * The time zone every time on the page is shown in: the selected location's, whatever location
   * the time belongs to, so one screen never mixes zones (panels redraw when the selection changes).
   */
  get zone(): string {
    const config = this.config.locations;
    return (config.find((l) => l.locationId === this.#selected) ?? config[0])?.timeZone ?? 'UTC';
  }

  locationName(locationId: string | null): string {
    if (locationId === null) return '–';
    return this.config.locations.find((l) => l.locationId === locationId)?.name ?? locationId;
  }

  /**
   * A message in the page's status line (a live region, so screen readers hear it), its ids
   * shortened. It floats over the page's foot, so it never moves the page; a success clears itself
   * after a while, an error stays until dismissed or replaced.
   */
  announce(text: string, bad = false): void {
    if (this.#flashTimer !== null) clearTimeout(this.#flashTimer);
    this.#flashTimer = null;
    byId('flash').replaceChildren(sentence('div', text, bad ? 'message bad' : 'message'));
    if (!bad) this.#flashTimer = setTimeout(() => this.dismiss(), SUCCESS_SHOWN_MS);
  }

  /** Clears the status line. */
  dismiss(): void {
    if (this.#flashTimer !== null) clearTimeout(this.#flashTimer);
    this.#flashTimer = null;
    byId('flash').replaceChildren();
  }

  /** Reports a failed action in the status line; a signed-out session is shown by the page already. */
  fail(error: unknown): void {
    if (error instanceof SignedOut) return;
    this.announce(describeError(error), true);
  }
}
