import { EventEmitter } from 'node:events';

import type { Clock } from '../../core/clock.js';
import type { Counters, EventBus, Locks } from '../store.js';

/**
 * Counters, locks and events for a sandbox that is one process (the embedded store): plain
 * memory is enough, since no other replica shares them. Rate-limit windows are short, so
 * counters are not persisted across a restart.
 */

const SWEEP_EVERY = 1000;

export class InProcessCounters implements Counters {
  readonly #counts = new Map<string, { count: number; expiresAtMs: number; window?: string }>();
  #sinceSweep = 0;

  constructor(private readonly clock: Clock) {}

  increment(key: string, ttlMs: number): Promise<number> {
    const nowMs = this.clock.now().getTime();
    if (++this.#sinceSweep >= SWEEP_EVERY) this.#sweep(nowMs);
    let entry = this.#counts.get(key);
    if (!entry || entry.expiresAtMs <= nowMs) {
      entry = { count: 0, expiresAtMs: nowMs + ttlMs };
      this.#counts.set(key, entry);
    }
    entry.count += 1;
    return Promise.resolve(entry.count);
  }

  decrement(key: string): Promise<void> {
    const entry = this.#counts.get(key);
    if (entry && entry.count > 0 && entry.expiresAtMs > this.clock.now().getTime()) entry.count -= 1;
    return Promise.resolve();
  }

  incrementInWindow(key: string, window: string, ttlMs: number): Promise<number> {
    const nowMs = this.clock.now().getTime();
    if (++this.#sinceSweep >= SWEEP_EVERY) this.#sweep(nowMs);
    let entry = this.#counts.get(key);
    if (!entry || entry.expiresAtMs <= nowMs || entry.window !== window) {
      entry = { count: 0, expiresAtMs: nowMs + ttlMs, window };
      this.#counts.set(key, entry);
    }
    entry.count += 1;
    return Promise.resolve(entry.count);
  }

  get(key: string): Promise<number> {
    const entry = this.#counts.get(key);
    return Promise.resolve(entry && entry.expiresAtMs > this.clock.now().getTime() ? entry.count : 0);
  }

  #sweep(nowMs: number): void {
    this.#sinceSweep = 0;
    for (const [key, entry] of this.#counts) if (entry.expiresAtMs <= nowMs) this.#counts.delete(key);
  }
}

/** Locks as promise chains: waiters run in arrival order, with no polling. */
export class InProcessLocks implements Locks {
  readonly #tails = new Map<string, Promise<unknown>>();

  withLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(name) ?? Promise.resolve();
    let release!: () => void;
    const tail = new Promise<void>((resolve) => (release = resolve));
    this.#tails.set(name, tail);
    // The lock is free again before the caller sees the result, so a tryLock right after succeeds.
    return previous.then(fn).finally(() => {
      if (this.#tails.get(name) === tail) this.#tails.delete(name);
      release();
    });
  }

  /** Held until released or until `ttlMs` (real time) has passed, as a networked lock whose holder died. */
  tryLock(name: string, ttlMs: number): Promise<(() => Promise<void>) | null> {
    if (this.#tails.has(name)) return Promise.resolve(null);
    let resolveHeld!: () => void;
    const held = new Promise<void>((resolve) => (resolveHeld = resolve));
    this.#tails.set(name, held);
    const free = (): void => {
      resolveHeld();
      // A holder whose lock expired must not free the next holder's.
      if (this.#tails.get(name) === held) this.#tails.delete(name);
    };
    const expiry = setTimeout(free, ttlMs);
    expiry.unref();
    return Promise.resolve(() => {
      clearTimeout(expiry);
      free();
      return Promise.resolve();
    });
  }
}

export class InProcessEvents implements EventBus {
  readonly #emitter = new EventEmitter().setMaxListeners(0);

  publish(channel: string, message: unknown): Promise<void> {
    // As on a networked bus, a message nobody subscribes to when it is published is dropped, and
    // handlers run after the publisher's turn.
    if (this.#emitter.listenerCount(channel) === 0) return Promise.resolve();
    queueMicrotask(() => this.#emitter.emit(channel, message));
    return Promise.resolve();
  }

  subscribe(channel: string, handler: (message: unknown) => void): Promise<() => Promise<void>> {
    const safe = (message: unknown): void => {
      try {
        handler(message);
      } catch {
        // A subscriber's failure is its own; the publisher and other subscribers go on.
      }
    };
    this.#emitter.on(channel, safe);
    return Promise.resolve(() => {
      this.#emitter.off(channel, safe);
      return Promise.resolve();
    });
  }
}
