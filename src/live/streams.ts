import type { ServerResponse } from 'node:http';

import type { Store } from '../store/store.js';
import { accountChannel } from './events.js';

export interface LiveStreamLimits {
  /** Open streams of one account in this process; one more is refused (a dashboard opens one per tab). */
  perAccount: number;
  /** Open streams in this process. */
  total: number;
  /** A comment line this often keeps proxies from closing an idle stream, and notices a session that ended. */
  heartbeatMs: number;
  /** A client that reads slower than this much unsent text is dropped; it reconnects and reloads its data. */
  maxBufferedBytes: number;
}

export const DEFAULT_LIVE_LIMITS: LiveStreamLimits = { perAccount: 20, total: 1000, heartbeatMs: 15_000, maxBufferedBytes: 256 * 1024 };

/** How long a browser waits before reconnecting a stream that broke (the `retry:` field). */
const RECONNECT_MS = 3000;

export interface OpenStreamOptions {
  /** Checked at each heartbeat: false ends the stream with a `signed-out` message (the session ended elsewhere). */
  stillAllowed?: () => Promise<boolean>;
}

/**
 * Server-sent event streams of accounts' events (text/event-stream over one long response).
 * Each stream subscribes to its account's channel on the store's event bus, so it hears what
 * every replica does, and unsubscribes when the client goes away. Messages are unnamed
 * (`data: <AccountEvent JSON>`), plus `{"type": "hello"}` first and `{"type": "signed-out"}` last
 * when the session ends. The registry is made once per process (deps) and closes every stream
 * at shutdown, which would otherwise wait for them.
 */
export class LiveStreams {
  readonly #open = new Map<string, Set<() => void>>();
  #total = 0;

  constructor(
    private readonly deps: { store: Store },
    readonly limits: LiveStreamLimits = DEFAULT_LIVE_LIMITS,
  ) {}

  /** Open streams of the account in this process. */
  count(accountId: string): number {
    return this.#open.get(accountId)?.size ?? 0;
  }

  /**
   * Streams the account's events on `res` until the client closes it. Answers false, writing
   * nothing, when the limits are reached (the caller answers 429).
   */
  async open(accountId: string, res: ServerResponse, options: OpenStreamOptions = {}): Promise<boolean> {
    if (this.count(accountId) >= this.limits.perAccount || this.#total >= this.limits.total) return false;
    let closed = false;
    let unsubscribe: (() => Promise<void>) | null = null;
    let nextId = 1;
    const streams = this.#open.get(accountId) ?? new Set<() => void>();
    this.#open.set(accountId, streams);

    const close = (): void => {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      streams.delete(close);
      this.#total -= 1;
      if (streams.size === 0 && this.#open.get(accountId) === streams) this.#open.delete(accountId);
      void unsubscribe?.().catch(() => undefined);
      if (!res.writableEnded) res.end();
    };
    const write = (text: string): void => {
      if (closed) return;
      res.write(text);
      if (res.writableLength > this.limits.maxBufferedBytes) close();
    };
    const send = (message: unknown): void => write(`id: ${nextId++}\ndata: ${JSON.stringify(message)}\n\n`);

    streams.add(close);
    this.#total += 1;
    const heartbeat = setInterval(() => {
      write(': heartbeat\n\n');
      if (!options.stillAllowed) return;
      options.stillAllowed().then(
        (allowed) => {
          if (allowed) return;
          send({ type: 'signed-out' });
          close();
        },
        () => undefined,
      );
    }, this.limits.heartbeatMs);
    heartbeat.unref();
    res.on('close', close);

    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      // nginx and similar proxies buffer responses unless told not to.
      'X-Accel-Buffering': 'no',
      'X-Content-Type-Options': 'nosniff',
    });
    res.flushHeaders();
    write(`retry: ${RECONNECT_MS}\n\n`);
    const off = await this.deps.store.events.subscribe(accountChannel(accountId), send);
    if (closed) {
      await off().catch(() => undefined);
      return true;
    }
    unsubscribe = off;
    // After subscribing, so an event published right after the client sees `hello` is not missed.
    send({ type: 'hello' });
    return true;
  }

  /** Ends every open stream (shutdown). */
  closeAll(): void {
    for (const streams of [...this.#open.values()]) for (const close of [...streams]) close();
  }
}
