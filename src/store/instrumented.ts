import { performance } from 'node:perf_hooks';

import { present } from '../core/errors.js';
import type { Store } from './store.js';

/** Receives the duration of one store operation, e.g. ('accounts.update', 0.0004). */
export type StoreObserver = (operation: string, seconds: number) => void;

/** The names of an object's methods: its own and its classes' (the stores are object literals or class instances). */
function methodNames(target: object): string[] {
  const names = new Set<string>();
  for (
    let layer: object | null = target;
    layer !== null && layer !== Object.prototype;
    layer = Object.getPrototypeOf(layer) as object | null
  ) {
    // Read from the descriptors: a getter is not a method, and is not run here.
    for (const [name, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(layer))) {
      if (name !== 'constructor' && typeof descriptor.value === 'function') names.add(name);
    }
  }
  return [...names];
}

/**
 * `target` with every method wrapped so that the duration of its promise is reported as
 * `<group>.<method>`. Wrapped once, here: a store call on the hot path pays for the timing
 * and nothing else (a Proxy would cost each property read).
 */
function timed<T extends object>(target: T, group: string, observe: StoreObserver): T {
  const wrapped: Record<string, unknown> = {};
  for (const name of methodNames(target)) {
    const operation = `${group}.${name}`;
    const method = present(
      (target as Record<string, ((...args: unknown[]) => unknown) | undefined>)[name],
      `the method ${name}`,
    );
    wrapped[name] = (...args: unknown[]): unknown => {
      const started = performance.now();
      const result = method.apply(target, args);
      if (!(result instanceof Promise)) return result;
      const done = (): void => observe(operation, (performance.now() - started) / 1000);
      // Not finally(): it costs each call two more turns of the microtask queue.
      return result.then(
        (value: unknown) => {
          done();
          return value;
        },
        (error: unknown) => {
          done();
          throw error;
        },
      );
    };
  }
  return wrapped as T;
}

/**
 * The same store, with each operation timed (for the store latency metric). Locks and the event
 * bus pass through untimed: a lock's duration is its holder's work, not the store's.
 */
export function instrumentStore(store: Store, observe: StoreObserver): Store {
  return {
    backend: store.backend,
    persistent: store.persistent,
    accounts: timed(store.accounts, 'accounts', observe),
    deliveries: timed(store.deliveries, 'deliveries', observe),
    journal: timed(store.journal, 'journal', observe),
    counters: timed(store.counters, 'counters', observe),
    settings: timed(store.settings, 'settings', observe),
    locks: store.locks,
    events: store.events,
    sessions: store.sessions,
    health: () => store.health(),
    flush: () => store.flush(),
    close: () => store.close(),
  };
}
