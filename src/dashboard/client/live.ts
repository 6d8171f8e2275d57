import { DASHBOARD_PATHS, type LiveMessage } from '../page-config.js';

export type LiveState = 'connecting' | 'live' | 'offline';

const MAX_RETRY_MS = 30_000;

/**
 * The account's events, pushed by the sandbox over server-sent events (one stream per tab; the
 * presenter view's own stream, of its messages, by `url`).
 * The browser reconnects a broken stream by itself; a stream the server refused (signed out,
 * too many tabs) is retried here with a growing delay, after `beforeRetry` (which checks the
 * session). Every (re)connection says hello, and the page then reloads what it shows.
 */
export class LiveConnection<M extends { type: string } = LiveMessage> {
  #source: EventSource | null = null;
  #retryMs = 2000;
  #stopped = false;

  constructor(
    private readonly handlers: {
      message: (message: M) => void;
      state: (state: LiveState) => void;
      beforeRetry: () => Promise<void>;
      /** The stream; the dashboard's by default. */
      url?: string;
    },
  ) {}

  start(): void {
    if (this.#stopped) return;
    this.handlers.state('connecting');
    const source = new EventSource(this.handlers.url ?? DASHBOARD_PATHS.events);
    this.#source = source;
    source.addEventListener('message', (event: MessageEvent<string>) => {
      let message: M;
      try {
        message = JSON.parse(event.data) as M;
      } catch {
        return;
      }
      if (message.type === 'hello') {
        this.#retryMs = 2000;
        this.handlers.state('live');
      }
      this.handlers.message(message);
    });
    source.addEventListener('error', () => {
      if (source.readyState !== EventSource.CLOSED) {
        this.handlers.state('connecting');
        return;
      }
      this.handlers.state('offline');
      source.close();
      const delay = this.#retryMs;
      this.#retryMs = Math.min(this.#retryMs * 2, MAX_RETRY_MS);
      setTimeout(() => {
        this.handlers.beforeRetry().then(
          () => this.start(),
          () => undefined,
        );
      }, delay);
    });
  }

  stop(): void {
    this.#stopped = true;
    this.#source?.close();
  }
}
