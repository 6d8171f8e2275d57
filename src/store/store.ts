import type { Data, DeepReadonly } from './data.js';

/**
 * The sandbox's state, behind an interface so no lowdb type leaks into the features.
 *
 * Every change is a synchronous function over the whole document, so two requests can never
 * interleave inside one change and no write is lost. Features validate their input before
 * they call `write`, so a rejected request leaves the state untouched.
 */
export interface Store {
  /** Reads state. The value passed in must not be kept beyond the call or changed. */
  read<T>(fn: (data: DeepReadonly<Data>) => T): T;
  /**
   * Applies a change and persists it. By default the returned promise settles once the
   * change is on disk; `durable: false` (journal entries and other high-volume bookkeeping)
   * persists it with the next write or within a second.
   */
  write<T>(fn: (data: Data) => T, options?: { durable?: boolean }): Promise<T>;
  /** Persists every pending change now. */
  flush(): Promise<void>;
  /** Whether state survives a restart (false for `:memory:`). */
  readonly persistent: boolean;
}
