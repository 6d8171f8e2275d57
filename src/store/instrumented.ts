import { performance } from 'node:perf_hooks';

import type { Store } from './store.js';

/** Receives the duration of one store operation, e.g. ('accounts.update', 0.0004). */
export type StoreObserver = (operation: string, seconds: number) => void;

/** Wraps every asynchronous method of `target` so that its duration is reported as `<group>.<method>`. */
function timed<T extends object>(target: T, group: string, observe: StoreObserver): T {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(object, property) {
      const value: unknown = Reflect.get(object, property, object);
      if (typeof value !== 'function') return value;
      let fn = wrapped.get(property);
      if (fn === undefined) {
        const operation = `${group}.${String(property)}`;
        const method = value as (...args: unknown[]) => unknown;
        fn = (...args: unknown[]): unknown => {
          const started = performance.now();
          const result = method.apply(object, args);
          if (!(result instanceof Promise)) return result;
          return result.finally(() => observe(operation, (performance.now() - started) / 1000));
        };
        wrapped.set(property, fn);
      }
      return fn;
    },
  });
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
