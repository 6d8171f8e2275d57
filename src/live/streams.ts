import type { ServerResponse } from 'node:http';

import { capReached } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { openEventStream, StreamSlots } from '../http/event-stream.js';
import type { Store } from '../store/store.js';
import { accountChannel } from './events.js';

export interface LiveStreamLimits {
  /** MAX_OPEN_STREAMS: open streams of one account in this process; one more is refused (a dashboard opens one per tab). */
  perAccount: number;
  /** A comment line this often keeps proxies from closing an idle stream, and notices a session that ended. */
  heartbeatMs: number;
  /** STREAM_BUFFER_LIMIT: a client that leaves this much unsent text is dropped; it reconnects and reloads its data. */
  maxBufferedBytes: number;
}

export const DEFAULT_LIVE_LIMITS: LiveStreamLimits = {
  perAccount: 20,
  heartbeatMs: 15_000,
  maxBufferedBytes: 1024 * 1024,
};

/** How long a browser waits before reconnecting a stream that broke (the `retry:` field). */
const RECONNECT_MS = 3000;

export interface OpenStreamOptions {
  /** Checked at each heartbeat: false ends the stream with a `signed-out` message (the session ended elsewhere). */
  stillAllowed?: () => Promise<boolean>;
}

export interface LiveStreamsDeps {
  store: Store;
  /** MAX_OPEN_STREAMS_TOTAL, shared with the relay's streams. */
  slots?: StreamSlots;
  logger?: Logger;
}

/**
 * Server-sent event streams of accounts' events (text/event-stream over one long response).
 * Each stream subscribes to its account's channel on the store's event bus, so it hears what
 * every replica does, and unsubscribes when the client goes away. Messages are unnamed
 * (`data: <AccountEvent JSON>`), plus `{"type": "hello"}` first and `{"type": "signed-out"}` last
 * when the session ends. A client that stops reading is dropped (see http/event-stream.ts). The
 * registry is made once per process (deps) and closes every stream at shutdown, which would
 * otherwise wait for them.
 */
export class LiveStreams {
  readonly #open = new Map<string, Set<() => void>>();
  readonly #slots: StreamSlots;

  constructor(
    private readonly deps: LiveStreamsDeps,
    readonly limits: LiveStreamLimits = DEFAULT_LIVE_LIMITS,
  ) {
    this.#slots = deps.slots ?? new StreamSlots(Number.POSITIVE_INFINITY);
  }

  /** Open streams of the account in this process. */
  count(accountId: string): number {
    return this.#open.get(accountId)?.size ?? 0;
  }

  /**
   * Streams the account's events on `res` until the client closes it. Throws a 409 naming the
   * setting, writing nothing, when the account (MAX_OPEN_STREAMS) or the process
   * (MAX_OPEN_STREAMS_TOTAL) holds as many streams as allowed.
   */
  async open(accountId: string, res: ServerResponse, options: OpenStreamOptions = {}): Promise<void> {
    const cap = this.limits.perAccount;
    if (this.count(accountId) >= cap) {
      throw capReached(
        'MAX_OPEN_STREAMS',
        `This account has ${cap} dashboard streams open on this sandbox, the most it allows (MAX_OPEN_STREAMS=${cap}); close a dashboard tab first`,
      );
    }
    // Ends this stream should its slot go to another account's (see StreamSlots); set once the stream exists.
    let endTakenBack = (): void => undefined;
    const giveBack = this.#slots.take(accountId, () => endTakenBack());
    let unsubscribe: (() => Promise<void>) | null = null;
    let nextId = 1;
    const streams = this.#open.get(accountId) ?? new Set<() => void>();
    this.#open.set(accountId, streams);

    const forget = (): void => {
      clearInterval(heartbeat);
      streams.delete(end);
      giveBack();
      if (streams.size === 0 && this.#open.get(accountId) === streams) this.#open.delete(accountId);
      void unsubscribe?.().catch(() => undefined);
    };
    const stream = openEventStream(res, {
      maxBufferedBytes: this.limits.maxBufferedBytes,
      headers: { 'Cache-Control': 'no-store', Connection: 'keep-alive' },
      onClose: forget,
      onStalled: (bufferedBytes) =>
        this.deps.logger?.warn('event stream closed: its client does not read', {
          stream: 'dashboard',
          accountId,
          bufferedBytes,
          limit: 'STREAM_BUFFER_LIMIT',
        }),
    });
    const end = (): void => stream.end();
    endTakenBack = end;
    const send = (message: unknown): void => void stream.write(`id: ${nextId++}\ndata: ${JSON.stringify(message)}\n\n`);

    streams.add(end);
    const heartbeat = setInterval(() => {
      stream.write(': heartbeat\n\n');
      if (!options.stillAllowed) return;
      options.stillAllowed().then(
        (allowed) => {
          if (allowed) return;
          send({ type: 'signed-out' });
          stream.end();
        },
        () => undefined,
      );
    }, this.limits.heartbeatMs);
    heartbeat.unref();

    stream.write(`retry: ${RECONNECT_MS}\n\n`);
    const off = await this.deps.store.events.subscribe(accountChannel(accountId), send);
    if (stream.closed) {
      await off().catch(() => undefined);
      return;
    }
    unsubscribe = off;
    // After subscribing, so an event published right after the client sees `hello` is not missed.
    send({ type: 'hello' });
  }

  /** Ends every open stream (shutdown). */
  closeAll(): void {
    for (const streams of [...this.#open.values()]) for (const end of [...streams]) end();
  }
}
