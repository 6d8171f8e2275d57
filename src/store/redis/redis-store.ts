import { systemClock, type Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import { NO_ACCOUNT_LIMITS, type AccountLimits } from '../limits.js';
import type { Store, StoreHealth } from '../store.js';
import { RedisConnection } from './connection.js';
import { RedisAccounts } from './redis-accounts.js';
import { RedisDeliveries } from './redis-deliveries.js';
import {
  RedisCounters,
  RedisEvents,
  RedisJournal,
  RedisLocks,
  RedisSessionStore,
  RedisSettings,
} from './redis-shared.js';

export interface RedisStoreOptions {
  /** REDIS_URL: redis:// or rediss://. */
  url: string;
  /** Put before every key and channel, so several sandboxes (or test runs) can share one Redis. */
  prefix?: string;
  /** Finished deliveries kept per account. */
  deliveryLogLimit: number;
  /** How long a login session lasts after its last use (a Redis TTL). */
  sessionTtlMs: number;
  /** Login sessions kept at most (MAX_SESSIONS); past it the least recently used one ends. Unbounded when absent. */
  maxSessions?: number;
  /** Account documents kept parsed in this process, checked against their version on each read. */
  cacheSize?: number;
  /** And at most this many bytes of them (their stored JSON). */
  cacheBytes?: number;
  /** Where connection trouble is reported. */
  logger?: Logger;
  /** The process clock (default: the system's): lifetimes of accounts are counted on it, as the requests recorded by touch are. */
  clock?: Clock;
  /** ACCOUNT_TTL in ms: how long a generated account lives after its last request (0 or absent: for ever). */
  accountLifetimeMs?: number;
  /** How long a lock held by withLock lives without renewal (real time; 30 s by default). */
  lockTtlMs?: number;
  /** The bounds every change of an account is checked against (none when absent). */
  limits?: AccountLimits;
}

export const DEFAULT_REDIS_PREFIX = 'ws:';

/**
 * All state in Redis, shared by any number of replicas. The layout, under the prefix (`ws:`):
 *
 *   acct:<id>          hash: the document (JSON), its version, name, origin, createdAt,
 *                      lastSeenMs, and the clock and next scenario step the due hint needs
 *   idx:<kind>         hash per index kind: key -> account id
 *   accounts           sorted set of `<createdAt>/<id>` (all scores 0: ordered by the text)
 *   idle, due          sorted sets: generated accounts by last request; accounts by next due work
 *   dlv:<id> dmeta:<id> dord:<id> dpend:<id> dfin:<id>   the delivery log (see RedisDeliveries)
 *   lease:<id>:<did>   a delivery's claim (TTL)           jrnl:<id>   request journal (capped list)
 *   jseq:<id>          the journal's last seq (counts up for the account's whole life)
 *   ctr:<key>          counters (TTL)    lock:<name>   locks (TTL)    sess:<sid>   sessions (TTL)
 *   sessions           sorted set: session ids by last use (process clock), to bound them
 *   settings           hash of named values              ev:<channel>   pub/sub channels
 *
 * Redis TTLs are used where a lifetime is real time: sessions, counters, claims and locks.
 * Accounts and their tokens expire on each account's virtual clock, and their index keys must
 * leave with the document, so those are removed explicitly (the idle sweep, token pruning).
 */
export class RedisStore implements Store {
  readonly backend = 'redis';
  readonly persistent = true;
  readonly accounts: RedisAccounts;
  readonly deliveries: RedisDeliveries;
  readonly journal: RedisJournal;
  readonly counters: RedisCounters;
  readonly locks: RedisLocks;
  readonly events: RedisEvents;
  readonly settings: RedisSettings;
  readonly sessions: RedisSessionStore;
  readonly #connection: RedisConnection;

  /** Starts connecting and returns at once; health() says when the store can serve. */
  constructor(options: RedisStoreOptions) {
    const prefix = options.prefix ?? DEFAULT_REDIS_PREFIX;
    const connection = new RedisConnection(options.url, options.logger);
    this.#connection = connection;
    const limits = options.limits ?? NO_ACCOUNT_LIMITS;
    this.accounts = new RedisAccounts(
      connection,
      prefix,
      options.cacheSize ?? 500,
      { clock: options.clock ?? systemClock, lifetimeMs: options.accountLifetimeMs ?? 0 },
      limits,
      options.cacheBytes,
    );
    this.deliveries = new RedisDeliveries(connection, prefix, options.deliveryLogLimit, limits);
    this.journal = new RedisJournal(connection, prefix);
    this.counters = new RedisCounters(connection, prefix);
    this.locks = new RedisLocks(connection, prefix, options.lockTtlMs);
    this.events = new RedisEvents(connection, prefix);
    this.settings = new RedisSettings(connection, prefix);
    this.sessions = new RedisSessionStore(connection, prefix, {
      ttlMs: options.sessionTtlMs,
      maxSessions: options.maxSessions ?? Number.POSITIVE_INFINITY,
      clock: options.clock ?? systemClock,
    });
  }

  health(): Promise<StoreHealth> {
    return this.#connection.health();
  }

  /** Nothing to do: every change is in Redis once acknowledged (its persistence is Redis's own: AOF, see docs/hosting.md). */
  flush(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return this.#connection.close();
  }
}
