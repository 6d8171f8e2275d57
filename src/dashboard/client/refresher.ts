import type { PanelName } from './context.js';

/** Panels that others read from (the clock's now, the locations), loaded before the rest. */
const FIRST: readonly PanelName[] = ['clock', 'locations'];

/**
 * Coalesces reload requests: a burst of live events (an alert, its deliveries, their retries)
 * reloads each panel once. At most one round runs at a time; requests made during a round
 * start another when it ends.
 */
export class Refresher {
  readonly #pending = new Set<PanelName>();
  #timer: ReturnType<typeof setTimeout> | null = null;
  #running = false;

  constructor(
    private readonly run: (panel: PanelName) => Promise<void>,
    private readonly onError: (error: unknown) => void,
  ) {}

  request(...panels: PanelName[]): void {
    for (const panel of panels) this.#pending.add(panel);
    if (this.#timer === null && !this.#running) this.#timer = setTimeout(() => void this.#flush(), 25);
  }

  async #flush(): Promise<void> {
    this.#timer = null;
    this.#running = true;
    const panels = [...this.#pending];
    this.#pending.clear();
    const attempt = (panel: PanelName): Promise<void> => this.run(panel).catch(this.onError);
    try {
      await Promise.all(panels.filter((p) => FIRST.includes(p)).map(attempt));
      await Promise.all(panels.filter((p) => !FIRST.includes(p)).map(attempt));
    } finally {
      this.#running = false;
      if (this.#pending.size > 0) this.request();
    }
  }
}
