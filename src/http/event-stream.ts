import type { ServerResponse } from 'node:http';

import { capReached } from '../core/errors.js';
import { Holdings } from '../core/holdings.js';
import { leaveFairShare } from './fair-share.js';

/**
 * Server-sent event streams that respect their readers: what is written and not yet taken by
 * the client waits in the process's memory, so a client that stops reading (a paused tab, a
 * stuck `listen`, a hostile script) must not make it grow. Past `maxBufferedBytes` unsent, the
 * stream stops writing and its connection is closed (destroyed: a client that does not read
 * would not read a graceful end either). A browser's EventSource reconnects, and so does
 * `water-sandbox listen`.
 */
export interface EventStreamOptions {
  /** STREAM_BUFFER_LIMIT: bytes written and not yet sent past which the client is taken as not reading. */
  maxBufferedBytes: number;
  headers: Readonly<Record<string, string>>;
  /** Called once, whenever and however the stream ends. */
  onClose: () => void;
  /** Called when the stream is closed because its client does not read, with the bytes it left unread. */
  onStalled?: (bufferedBytes: number) => void;
}

export interface EventStream {
  /** Writes unless the stream is closed; false once it is. */
  write(text: string): boolean;
  /** Ends the stream (the client leaves, the session ended, shutdown). */
  end(): void;
  readonly closed: boolean;
}

/** Starts the stream on `res`: the status line and headers go out at once. */
export function openEventStream(res: ServerResponse, options: EventStreamOptions): EventStream {
  let closed = false;
  const close = (): void => {
    if (closed) return;
    closed = true;
    options.onClose();
  };
  res.on('close', close);
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    // nginx and similar proxies pass the stream on as it comes when told so.
    'X-Accel-Buffering': 'no',
    'X-Content-Type-Options': 'nosniff',
    ...options.headers,
  });
  res.flushHeaders();
  leaveFairShare(res);
  return {
    write(text) {
      if (closed) return false;
      res.write(text);
      const buffered = res.writableLength;
      if (buffered > options.maxBufferedBytes) {
        close();
        options.onStalled?.(buffered);
        res.destroy();
      }
      return !closed;
    },
    end() {
      close();
      if (!res.writableEnded) res.end();
    },
    get closed() {
      return closed;
    },
  };
}

/** A stream's slot: what ends the stream when its slot is taken back for another holder's. */
interface Slot {
  end: () => void;
}

/**
 * MAX_OPEN_STREAMS_TOTAL: the event streams (dashboards, `listen`, and any other kind) a process
 * holds open at once, all accounts together; each holds a connection, a subscription to the
 * event bus, and up to STREAM_BUFFER_LIMIT of unsent text. Shared fairly: when every slot is
 * held, a stream of a holder with fewer streams than another takes the slot of the biggest
 * holder's oldest stream, which ends (a browser and `listen` reconnect, and are refused while
 * they would hold more than their share). A new account's first stream therefore always finds a
 * place while any account holds two, and a few accounts cannot hold every slot between them.
 */
export class StreamSlots {
  readonly #held = new Holdings<Slot>();

  constructor(
    readonly max: number,
    /** Told when a slot is taken back from `from`'s oldest stream for a stream of `to`. */
    private readonly onTakenBack: (from: string, to: string) => void = () => undefined,
  ) {}

  get open(): number {
    return this.#held.size;
  }

  /** Streams of `holder` holding a slot. */
  heldBy(holder: string): number {
    return this.#held.count(holder);
  }

  /**
   * Takes a slot for a stream of `holder` (the account it serves: what its fair part is counted
   * by); `end` ends that stream if its slot is taken back. When none is free, the biggest holder
   * gives up its oldest stream if it holds at least two more than `holder` (so no slot moves
   * back and forth between two holders); else a 409 naming the setting. The returned function
   * gives the slot back, once (nothing once it was taken back).
   */
  take(holder: string, end: () => void): () => void {
    if (this.#held.size >= this.max) this.#takeBackFor(holder);
    const slot: Slot = { end };
    this.#held.add(holder, slot);
    return () => void this.#held.delete(holder, slot);
  }

  #takeBackFor(holder: string): void {
    const biggest = this.#held.biggest();
    const oldest = biggest === undefined ? undefined : this.#held.oldest(biggest);
    if (biggest === undefined || oldest === undefined || this.#held.count(biggest) < this.#held.count(holder) + 2) {
      throw capReached(
        'MAX_OPEN_STREAMS_TOTAL',
        `This sandbox has ${this.#held.size} event streams open on this replica, the most it allows (MAX_OPEN_STREAMS_TOTAL=${this.max}), and none held by an account with more than its share; try again once some have closed`,
      );
    }
    this.#held.delete(biggest, oldest);
    this.onTakenBack(biggest, holder);
    oldest.end();
  }
}
