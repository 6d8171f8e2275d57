import { join } from 'node:path';

import type { Clock } from '../../core/clock.js';
import { NO_ACCOUNT_LIMITS, type AccountLimits } from '../limits.js';
import type { Store, StoreHealth } from '../store.js';
import { AccountCache } from './account-cache.js';
import { AccountIndex } from './account-index.js';
import { EmbeddedAccounts } from './embedded-accounts.js';
import { EmbeddedDeliveries } from './embedded-deliveries.js';
import { EmbeddedJournal } from './embedded-journal.js';
import { EmbeddedSettings } from './embedded-settings.js';
import { InProcessCounters, InProcessEvents, InProcessLocks } from './in-process.js';
import { EmbeddedSessionStore } from './session-file.js';

export { STORE_SCHEMA_VERSION } from './embedded-settings.js';

/**
 * The embedded store: lowdb documents in DATA_DIR, or the same structures in memory. Its parts
 * mirror the Redis store's: accounts, deliveries, journal and settings, over one account cache
 * (account-cache.ts) that loads, pins and evicts accounts, and the index (account-index.ts).
 *
 *   store.json                    schema version and settings
 *   index/summaries/<000-fff>.json  each account's summary (name, origin, creation, last request,
 *                                   due time, keys), in 4096 shards by hash of the account
 *   index/keys/<000-fff>.json       each index key's account, in 4096 shards by hash of the key
 *   index/keys/journal.log          every write of a key since the key shards' files were, a JSON line each
 *   index/summaries/<000-fff>.log   the changes of a summaries' shard since its file was written, a JSON line each
 *   index/at-close.json             the count and due times a clean close left, taken by the next open (closed-index.ts)
 *   accounts/<id>.json              one account: its document and its delivery log
 *   journals/<id>.json              its request journal (written lazily: losing a second of it is harmless)
 *   sessions/<sid>.json             login sessions, one file each
 *
 * Account documents are loaded on first use and kept in a bounded cache, and the index is read
 * a shard at a time and kept in a bounded cache of its own (account-index.ts), so memory
 * follows the accounts in use, not the accounts stored. A change writes the account's own file
 * and, when its keys or summary changed, a line of each index shard they are in: nothing of
 * other accounts.
 */

export interface EmbeddedStoreOptions {
  /** Folder of the files; null keeps everything in memory. */
  dir: string | null;
  /** The process clock: session expiry, counters and last-seen times follow it. */
  clock: Clock;
  /** Finished deliveries kept per account. */
  deliveryLogLimit: number;
  /** How long a login session lasts after its last use. */
  sessionTtlMs: number;
  /** Login sessions kept at most (MAX_SESSIONS); past it the least recently used one ends. Unbounded when absent. */
  maxSessions?: number;
  /** Accounts kept loaded (file mode); the rest are read from disk when used. */
  cacheSize?: number;
  /**
   * Index records of each kind (account summaries, keys) kept in memory besides those of the
   * accounts held (file mode; INDEX_CACHE_RECORDS when absent): the rest are read from disk when used.
   */
  indexCacheRecords?: number;
  /** Keys the index's journal holds before it is written into the key shards (JOURNAL_KEYS when absent; key-journal.ts). */
  indexJournalKeys?: number;
  /**
   * And at most this many characters of their files (documents, delivery logs and journals), so
   * memory stays bounded whatever the accounts in use hold (file mode; none when absent).
   */
  cacheBytes?: number;
  /** ACCOUNT_TTL in ms: how long a generated account lives after its last request (0 or absent: for ever). */
  accountLifetimeMs?: number;
  /** The bounds every change of an account is checked against (none when absent). */
  limits?: AccountLimits;
  /**
   * ACCOUNT_WRITE_RATE: bytes a second one account's file is written at, at most (0 or absent: no
   * limit). A full account written at every change of a flood would hold the event loop with its
   * text for everyone; paced, the changes of a flood are written together.
   */
  accountWriteRate?: number;
}

/** What the store found when it opened: a fresh folder, or existing state. */
export interface OpenedEmbeddedStore {
  store: EmbeddedStore;
  fresh: boolean;
}

export class EmbeddedStore implements Store {
  readonly backend: 'lowdb' | 'memory';
  readonly persistent: boolean;
  readonly accounts: EmbeddedAccounts;
  readonly deliveries: EmbeddedDeliveries;
  readonly journal: EmbeddedJournal;
  readonly counters: InProcessCounters;
  readonly locks = new InProcessLocks();
  readonly events = new InProcessEvents();
  readonly settings: EmbeddedSettings;
  readonly sessions: EmbeddedSessionStore;
  readonly #index: AccountIndex;
  readonly #cache: AccountCache;

  private constructor(
    options: EmbeddedStoreOptions,
    index: AccountIndex,
    settings: EmbeddedSettings,
    sessions: EmbeddedSessionStore,
  ) {
    const { dir } = options;
    this.backend = dir === null ? 'memory' : 'lowdb';
    this.persistent = dir !== null;
    this.#index = index;
    this.#cache = new AccountCache(index, {
      dir,
      cacheSize: options.cacheSize,
      cacheBytes: options.cacheBytes,
      writeRate: options.accountWriteRate,
    });
    const limits = options.limits ?? NO_ACCOUNT_LIMITS;
    this.deliveries = new EmbeddedDeliveries(this.#cache, index, options.deliveryLogLimit, limits);
    this.accounts = new EmbeddedAccounts(this.#cache, index, {
      clock: options.clock,
      lifetimeMs: options.accountLifetimeMs ?? 0,
      limits,
      onDelete: (loaded) => this.deliveries.forgetClaims(loaded),
    });
    this.journal = new EmbeddedJournal(this.#cache, this.events);
    this.settings = settings;
    this.counters = new InProcessCounters(options.clock);
    this.sessions = sessions;
  }

  /** Opens the folder (or memory). A folder without store.json is fresh: nothing is read from it. */
  static async open(options: EmbeddedStoreOptions): Promise<OpenedEmbeddedStore> {
    const { dir } = options;
    const { settings, fresh } = await EmbeddedSettings.open(dir);
    const index = await AccountIndex.open(dir, fresh, {
      cacheRecords: options.indexCacheRecords,
      journalKeys: options.indexJournalKeys,
    });
    const sessions = await EmbeddedSessionStore.open({
      dir: dir === null ? null : join(dir, 'sessions'),
      readExisting: !fresh,
      legacyFile: fresh || dir === null ? null : join(dir, 'sessions.json'),
      clock: options.clock,
      ttlMs: options.sessionTtlMs,
      maxSessions: options.maxSessions ?? Number.POSITIVE_INFINITY,
    });
    const store = new EmbeddedStore(options, index, settings, sessions);
    // Written last: a folder with store.json holds a store.
    if (fresh) await settings.file.save();
    return { store, fresh };
  }

  health(): Promise<StoreHealth> {
    return Promise.resolve({ ok: true });
  }

  async flush(): Promise<void> {
    const files: { flush(): Promise<void> }[] = [
      this.settings.file,
      this.sessions,
      this.#index,
      ...this.#cache.files(),
    ];
    await Promise.all(files.map((f) => f.flush()));
    this.#cache.evict();
  }

  /** Writes everything, the logs of the summaries' shards in memory folded into their files (the keys' journal stays: key-journal.ts), then what the next open would read every summary for (closed-index.ts). */
  async close(): Promise<void> {
    await this.flush();
    await this.#index.fold();
    await this.#index.writeClosedState();
  }

  /** How many account documents are in memory now (for tests and benchmarks). */
  get loadedAccounts(): number {
    return this.#cache.size;
  }

  /** Shards of index keys read so far (for tests and benchmarks). */
  get keyShardReads(): number {
    return this.#index.keyShardReads;
  }

  /** Shards of account summaries read so far (for tests). */
  get summaryShardReads(): number {
    return this.#index.summaryShardReads;
  }

  /** Index records in memory now, summaries and keys (for tests and benchmarks). */
  get indexRecordsInMemory(): number {
    return this.#index.residentRecords;
  }

  /** Characters of the files of the accounts in memory now, as the cache counts them against cacheBytes (for tests). */
  get loadedBytes(): number {
    return this.#cache.bytes;
  }
}
