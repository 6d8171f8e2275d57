import type { ServerResponse } from 'node:http';

import { capReached } from '../core/errors.js';
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

/**
 * MAX_OPEN_STREAMS_TOTAL: the event streams (dashboards and `listen`) a process holds open at
 * once, all accounts together; each holds a connection, a subscription to the event bus, and up
 * to STREAM_BUFFER_LIMIT of unsent text.
 */
export class StreamSlots {
  #open = 0;

  constructor(readonly max: number) {}

  get open(): number {
    return this.#open;
  }

  /** Takes a slot (a 409 naming the setting when none is free); the returned function gives it back, once. */
  take(): () => void {
    if (this.#open >= this.max) {
      throw capReached(
        'MAX_OPEN_STREAMS_TOTAL',
        `This sandbox has ${this.#open} event streams open on this replica, the most it allows (MAX_OPEN_STREAMS_TOTAL=${this.max}); try again once some have closed`,
      );
    }
    this.#open++;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.#open--;
    };
  }
}
