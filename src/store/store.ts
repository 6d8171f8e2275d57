import type session from 'express-session';

import type {
  AccountDoc,
  AccountRecord,
  DeepReadonly,
  DeliveryKind,
  DeliveryRecord,
  DeliveryState,
  JournalEntry,
} from './data.js';

/**
 * The sandbox's state, per account, behind one interface with two implementations: the
 * embedded one (lowdb files in DATA_DIR, or memory) and Redis (REDIS_URL, for replicas). Both
 * pass test/store/contract.ts. No lowdb or Redis type leaks out of src/store.
 *
 * The cost of every operation depends on the account it touches, never on how many accounts
 * are stored: look-ups go through indexes, and lists that grow with use are bounded.
 */
export interface Store {
  readonly backend: StoreBackend;
  /** Whether state survives a restart (false for DATA_DIR=:memory:). */
  readonly persistent: boolean;
  readonly accounts: AccountStore;
  readonly deliveries: DeliveryStore;
  readonly journal: JournalStore;
  readonly counters: Counters;
  readonly locks: Locks;
  readonly events: EventBus;
  readonly settings: Settings;
  /** express-session's store for login sessions (connect-redis with Redis). */
  readonly sessions: session.Store;
  /** Whether the store can serve requests now, and why not. */
  health(): Promise<StoreHealth>;
  /** Persists every pending change now. */
  flush(): Promise<void>;
  /** Flushes and releases files and connections. */
  close(): Promise<void>;
}

export type StoreBackend = 'lowdb' | 'memory' | 'redis';

export interface StoreHealth {
  ok: boolean;
  /** Why not, when `ok` is false. */
  reason?: string;
}

/**
 * Keys that resolve to the account owning them. The store keeps these indexes itself,
 * derived from each account's document (see indexEntriesOf), so they cannot drift from it.
 */
export type IndexKind =
  | 'apiKey'
  | 'email'
  | 'accessToken'
  | 'refreshToken'
  | 'authorizationCode'
  | 'oauthClient'
  | 'location'
  | 'subscription'
  | 'demoLink';

/** Thrown by `create` and `update` when a key of the document already belongs to another account. */
export class IndexConflictError extends Error {
  constructor(
    readonly kind: IndexKind,
    readonly key: string,
  ) {
    super(`${kind} ${JSON.stringify(key)} already belongs to another account`);
    this.name = 'IndexConflictError';
  }
}

/** Thrown by `create` when the store holds as many accounts as `maxAccounts` allows already. */
export class AccountsFullError extends Error {
  constructor(readonly maxAccounts: number) {
    super(`The store holds ${maxAccounts} accounts, the most allowed`);
    this.name = 'AccountsFullError';
  }
}

/** Thrown by `update` when the account does not exist (any more). */
export class AccountMissingError extends Error {
  constructor(readonly accountId: string) {
    super(`No account ${accountId}`);
    this.name = 'AccountMissingError';
  }
}

export interface AccountSummary {
  accountId: string;
  name: string;
  origin: AccountRecord['origin'];
  createdAt: string;
  /** Last request with the account's credentials, on the process clock (ms), or null. */
  lastSeenMs: number | null;
}

/**
 * A request of an account is recorded (AccountStore.touch) at most this often per account and
 * process, so the record may be up to this much older than the account's last request.
 */
export const LAST_REQUEST_RESOLUTION_MS = 1000;

/**
 * Generated accounts have a lifetime (ACCOUNT_TTL): past it without a request, they are gone.
 * The two reads a request starts from, findByKey and get, answer null for such an account at
 * once, as if it were deleted; its storage is reclaimed later, by deleting the accounts
 * idleSince lists. Writes still apply, so a request that began within the lifetime finishes.
 */
export interface AccountStore {
  /** The account owning `key`, or null. An index look-up only: it may name an account past its lifetime. */
  lookup(kind: IndexKind, key: string): Promise<string | null>;
  /**
   * The account owning `key` and its document, or null (also when the account is past its
   * lifetime): lookup and get as one read (one round trip to Redis while the document is
   * unchanged). The document is as get's.
   */
  findByKey(kind: IndexKind, key: string): Promise<{ accountId: string; doc: DeepReadonly<AccountDoc> } | null>;
  /** The account's document, or null (also when it is past its lifetime). It must not be changed, nor kept beyond the request. */
  get(accountId: string): Promise<DeepReadonly<AccountDoc> | null>;
  /**
   * Read-modify-write of one account, atomic: `change` gets the current document (a copy it
   * may change, usable until it returns; what it returns may hold parts of it, handed back as
   * the change left them) and what else the change stores with it. Changes to one account are applied
   * one at a time; changes to different accounts proceed independently. `change` must be
   * synchronous and depend only on its arguments: a networked store may call it again when
   * another replica changed the account meanwhile. When it throws, nothing is stored.
   * Throws AccountMissingError when the account does not exist.
   */
  update<T>(accountId: string, change: (doc: AccountDoc, tx: AccountTx) => T): Promise<T>;
  /**
   * Stores a new account; false when one with that id exists already. With `maxAccounts`, throws
   * AccountsFullError instead when the store holds that many accounts (checked atomically with
   * the creation, against the running count: no walk over the accounts).
   */
  create(doc: AccountDoc, deliveries?: readonly DeliveryRecord[], options?: { maxAccounts?: number }): Promise<boolean>;
  /** Deletes the account with its deliveries, journal and index entries; false when absent. */
  delete(accountId: string): Promise<boolean>;
  /** Accounts in creation order, `limit` at a time, after the cursor of the previous page. */
  list(page: { after?: string; limit: number }): Promise<{ accounts: AccountSummary[]; next: string | null }>;
  count(): Promise<number>;
  /** Records a request of the account at `atMs` (process clock); idle generated accounts expire from it. */
  touch(accountId: string, atMs: number): Promise<void>;
  /** Generated accounts with no request since `beforeMs` (or ever, and created before it), oldest first. */
  idleSince(beforeMs: number, limit: number): Promise<string[]>;
  /**
   * Accounts with work due at `nowMs` on the process clock: a pending delivery or a scenario
   * step whose time has come on the account's clock. Computed by the store whenever the
   * account, its deliveries or its clock change, so finding them never scans all accounts.
   */
  due(nowMs: number, limit: number): Promise<string[]>;
}

export interface AccountTx {
  /** New deliveries, stored atomically with the change. */
  addDeliveries(records: readonly DeliveryRecord[]): void;
  /**
   * Lets the change reach the disk a little later: for bookkeeping that a crash may lose, such
   * as the readiness digest (folded again from the journal). Readers see the change at once, and
   * the next change of the account that is not lazy writes it too; the embedded store writes it
   * within a second, Redis stores every change at once.
   */
  writeLazily(): void;
}

export interface DeliveryQuery {
  subscriptionId?: string;
  locationId?: string;
  state?: DeliveryState;
  kind?: DeliveryKind;
  /** 0-based position in the filtered list, newest first. */
  offset: number;
  limit: number;
}

export interface DeliveryStore {
  get(accountId: string, deliveryId: string): Promise<DeepReadonly<DeliveryRecord> | null>;
  /** Newest first; `total` counts every match. The records as stored (read-only, like `get`'s). */
  list(accountId: string, query: DeliveryQuery): Promise<{ total: number; items: DeepReadonly<DeliveryRecord>[] }>;
  add(accountId: string, records: readonly DeliveryRecord[]): Promise<void>;
  /**
   * Read-modify-write of one delivery, atomic like AccountStore.update; null when it is gone.
   * Ends any claim on it. When it leaves the `pending` state, the account's log is trimmed to
   * its newest `logLimit` finished deliveries.
   */
  update<T>(accountId: string, deliveryId: string, change: (record: DeliveryRecord) => T): Promise<T | null>;
  /**
   * Pending deliveries due at `nowMs` on the account's clock that nobody has claimed, oldest
   * due first, at most `limit`, leaving out those whose target's origin (see originOf) is in
   * `skipOrigins`: the dispatcher's full origins, so that the deliveries of a slow one never
   * fill the answer and hide those of a healthy one. At most one of each subscription, and none
   * of a subscription with a delivery claimed (a claimed one was due when claimed, so it comes
   * first): a subscription's notifications are attempted one at a time, in the order they fell
   * due, so its endpoint gets them in the order of the events.
   */
  due(accountId: string, nowMs: number, limit: number, skipOrigins?: readonly string[]): Promise<DeliveryRecord[]>;
  /**
   * Claims a delivery for `leaseMs` (real time): true when `owner` got it. Nobody else gets it
   * until it is updated, released, or the lease ends, so each attempt is made by one replica,
   * and the deliveries of a replica that dies mid-attempt are taken over. With `dueByMs` (the
   * account clock's now), only a delivery due by then is claimed: a candidate of `due` that
   * another replica attempted and rescheduled meanwhile is not sent early.
   */
  claim(accountId: string, deliveryId: string, owner: string, leaseMs: number, dueByMs?: number): Promise<boolean>;
  /** Gives a claimed delivery back without an attempt (a replica stopping). */
  release(accountId: string, deliveryId: string, owner: string): Promise<void>;
  /** When the account's next pending delivery falls due on its clock, or null. */
  nextDueMs(accountId: string): Promise<number | null>;
  /**
   * Takes these deliveries out of the log, whatever their state (a pending one is then never
   * sent), ending their claims; ids it does not hold are passed over. Returns how many it took.
   */
  remove(accountId: string, deliveryIds: readonly string[]): Promise<number>;
  /** Ends the pending deliveries of a subscription as failed with `note`; returns how many. */
  cancelPending(accountId: string, subscriptionId: string, note: string): Promise<number>;
  /** Forgets the account's whole log. */
  clear(accountId: string): Promise<void>;
  /** The queue of work due at `nowMs` on the process clock, across accounts (for metrics). */
  queue(nowMs: number): Promise<QueueStats>;
}

/** Accounts with due work whose deliveries DeliveryStore.queue counts; beyond them, accounts are counted only. */
export const QUEUE_STATS_ACCOUNTS = 1000;

export interface QueueStats {
  /** Pending deliveries due now, unclaimed or claimed, counted over the accounts with work due. */
  dueDeliveries: number;
  /** Accounts with work due now (deliveries or scenario steps). */
  dueAccounts: number;
  /** When the longest-waiting account's work fell due (process clock), or null when none waits. */
  oldestDueMs: number | null;
}

/** A message for the event bus, published by the store after a change (see JournalStore.append). */
export interface Announcement {
  channel: string;
  message: unknown;
}

export interface JournalStore {
  /**
   * Appends an entry in O(1), keeping the newest JOURNAL_LIMIT; not awaited on request paths.
   * The stored entry gets the account's next `seq` (1, 2, ...; never repeated, not even after a
   * clear), so a reader can tell which entries it has seen and how many it missed.
   * With `announce`, publishes it on the event bus once the entry is stored (Redis: in the same
   * script, so a request's entry and its live event cost one round trip); nothing is published
   * when the account is gone.
   */
  append(accountId: string, entry: JournalEntry, announce?: Announcement): Promise<void>;
  /** Newest first, each with its seq. */
  list(accountId: string, limit: number): Promise<JournalEntry[]>;
  clear(accountId: string): Promise<void>;
}

/** Entries kept per account in the request journal. */
export const JOURNAL_LIMIT = 200;

export interface Counters {
  /**
   * Adds one to `key` and returns the new count. A counter vanishes `ttlMs` after its first
   * increment, so a caller that puts its time window in the key gets a fixed-window limit.
   */
  increment(key: string, ttlMs: number): Promise<number>;
  /**
   * Takes one back from `key` (something counted before it was checked that, checked, does not
   * count): never below zero, and the window stays the one the first increment set.
   */
  decrement(key: string): Promise<void>;
  /**
   * Adds one to `key`'s count in `window` and returns it: one counter per key, whatever the
   * windows, so a caller whose windows do not follow the store's clock (an account's clock,
   * which a partner moves at will) keeps one counter, not one per window. An increment in another
   * window starts it again at 1; it vanishes `ttlMs` after its window's first increment.
   */
  incrementInWindow(key: string, window: string, ttlMs: number): Promise<number>;
  /** The count of `key` now (0 when it has none or it vanished). */
  get(key: string): Promise<number>;
}

export interface Locks {
  /**
   * Runs `fn` holding the named lock: one holder at a time, across replicas. Waits for the
   * lock; a holder that dies loses it after `ttlMs` (renewed while `fn` runs).
   */
  withLock<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /**
   * Takes the lock only if it is free (for background work that one replica should do). It is
   * held until the returned function releases it or `ttlMs` (real time) has passed, whichever
   * comes first, so a holder that dies or hangs frees it; a late release frees nobody else's.
   */
  tryLock(name: string, ttlMs: number): Promise<(() => Promise<void>) | null>;
}

/** Messages between the parts of one sandbox, whichever replica they run in. */
export interface EventBus {
  publish(channel: string, message: unknown): Promise<void>;
  /** Resolves once subscribed; the returned function unsubscribes. */
  subscribe(channel: string, handler: (message: unknown) => void): Promise<() => Promise<void>>;
}

/** A few named values of the whole sandbox (the session secret, the fixtures' fingerprint). */
export interface Settings {
  get(name: string): Promise<string | null>;
  set(name: string, value: string): Promise<void>;
  /** Stores `value` unless the name has one; returns the stored value. */
  setIfAbsent(name: string, value: string): Promise<string>;
}

/**
 * Who a login session counts for when the store holds MAX_SESSIONS (SessionData's `holder`: the
 * network it was signed in from); '' for a session saved without one. Both backends end the
 * least recently used session of the biggest holder first.
 */
export const sessionHolder = (session: object): string => {
  const holder = (session as { holder?: unknown }).holder;
  return typeof holder === 'string' ? holder : '';
};
