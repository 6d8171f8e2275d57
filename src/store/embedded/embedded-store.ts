import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import type { Clock } from '../../core/clock.js';
import { hash32 } from '../../core/random.js';
import type { AccountDoc, DeepReadonly, DeliveryRecord, JournalEntry } from '../data.js';
import { ACCOUNT_SCHEMA_VERSION } from '../data.js';
import { deliveryDueMs, diffEntries, earliest, indexEntriesOf, nextRunDueMs, originOf, pastLifetime, processDueMs, splitIndexEntry } from '../derived.js';
import { checkAccountBytes, checkPendingDeliveries, deepFreeze, NO_ACCOUNT_LIMITS, storedBytes, type AccountLimits } from '../limits.js';
import {
  AccountMissingError,
  IndexConflictError,
  JOURNAL_LIMIT,
  QUEUE_STATS_ACCOUNTS,
  type AccountStore,
  type AccountSummary,
  type AccountTx,
  type Announcement,
  type DeliveryQuery,
  type DeliveryStore,
  type IndexKind,
  type JournalStore,
  type QueueStats,
  type Settings,
  type Store,
  type StoreHealth,
} from '../store.js';
import { InProcessCounters, InProcessEvents, InProcessLocks } from './in-process.js';
import { LowdbFile, StoreFileError } from './lowdb-file.js';
import { EmbeddedSessionStore } from './session-file.js';

/**
 * The embedded store: lowdb documents in DATA_DIR, or the same structures in memory.
 *
 *   store.json           schema version and settings
 *   index/<00-ff>.json   the index, in 256 shards by hash of the account: each account's summary and keys
 *   accounts/<id>.json   one account: its document and its delivery log
 *   journals/<id>.json   its request journal (written lazily: losing a second of it is harmless)
 *   sessions/<sid>.json  login sessions, one file each
 *
 * The whole index is held in memory (a few dozen bytes per key), so every look-up is a map
 * access; account documents are loaded on first use and kept in a bounded cache, so memory
 * follows the accounts in use, not the accounts stored. A change writes the account's own
 * file and, when its keys or summary changed, its own index shard: nothing of other accounts
 * but their neighbours in that shard.
 */

export const STORE_SCHEMA_VERSION = 2;
const SHARDS = 256;

/** The journal may exceed its limit by this many entries before a trim. */
const JOURNAL_SLACK = 50;
/**
 * How soon bookkeeping reaches the disk: journals within a few seconds, last-request times
 * (which only decide when an idle account expires, days later) within a minute. Written
 * sooner, a hosted sandbox's active accounts would rewrite their files every second.
 */
const JOURNAL_FLUSH_MS = 5000;
const LAST_SEEN_FLUSH_MS = 60_000;

interface AccountMeta {
  name: string;
  origin: 'fixture' | 'generated';
  createdAt: string;
  lastSeenMs: number | null;
  /** When the account's next work falls due on the process clock; null when none is scheduled. */
  dueAtMs: number | null;
  /** The account's index keys (see indexEntriesOf). */
  entries: string[];
}

interface ShardDocument {
  accounts: Record<string, AccountMeta>;
}

interface AccountFileData {
  doc: AccountDoc;
  deliveries: DeliveryRecord[];
}

interface JournalFileData {
  entries: JournalEntry[];
  /** The seq of the last entry appended, kept when the journal is cleared so seqs never repeat. */
  lastSeq?: number;
}

interface StoreFileData {
  schemaVersion: number;
  settings: Record<string, string>;
}

interface LoadedAccount {
  file: LowdbFile<AccountFileData>;
  /** The stored document as JSON, once a change or a write has made it (a write of the file reuses it). */
  docText: DocText;
  byId: Map<string, DeliveryRecord>;
  pending: Set<string>;
  finished: number;
  entries: Set<string>;
  journal: LowdbFile<JournalFileData> | null;
  /** Operations under way; a pinned account is not evicted. */
  pins: number;
}

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
   * And at most this many characters of their files (documents, delivery logs and journals), so
   * memory stays bounded whatever the accounts in use hold (file mode; none when absent).
   */
  cacheBytes?: number;
  /** ACCOUNT_TTL in ms: how long a generated account lives after its last request (0 or absent: for ever). */
  accountLifetimeMs?: number;
  /** The bounds every change of an account is checked against (none when absent). */
  limits?: AccountLimits;
}

/** What the store found when it opened: a fresh folder, or existing state. */
export interface OpenedEmbeddedStore {
  store: EmbeddedStore;
  fresh: boolean;
}

export class EmbeddedStore implements Store {
  readonly backend: 'lowdb' | 'memory';
  readonly persistent: boolean;
  readonly accounts: AccountStore;
  readonly deliveries: DeliveryStore;
  readonly journal: JournalStore;
  readonly counters: InProcessCounters;
  readonly locks = new InProcessLocks();
  readonly events = new InProcessEvents();
  readonly settings: Settings;
  readonly sessions: EmbeddedSessionStore;

  readonly #dir: string | null;
  readonly #options: EmbeddedStoreOptions;
  readonly #shards: LowdbFile<ShardDocument>[];
  readonly #storeFile: LowdbFile<StoreFileData>;
  readonly #loaded = new Map<string, LoadedAccount>();
  readonly #loading = new Map<string, { waiters: number; promise: Promise<LoadedAccount | null> }>();
  /** Every index key, and the account it resolves to: built from the shards at start-up. */
  readonly #owners = new Map<string, string>();
  /** Accounts with work scheduled, and when it falls due on the process clock. */
  readonly #due = new Map<string, number>();
  /** Claims on deliveries: who holds each, and until when (real time: a claim outlives no process). */
  readonly #leases = new Map<string, { owner: string; untilMs: number }>();
  #accountCount = 0;

  get #limits(): AccountLimits {
    return this.#options.limits ?? NO_ACCOUNT_LIMITS;
  }

  private constructor(options: EmbeddedStoreOptions, shards: LowdbFile<ShardDocument>[], storeFile: LowdbFile<StoreFileData>, sessions: EmbeddedSessionStore) {
    this.#options = options;
    this.#dir = options.dir;
    this.backend = options.dir === null ? 'memory' : 'lowdb';
    this.persistent = options.dir !== null;
    this.#shards = shards;
    this.#storeFile = storeFile;
    this.counters = new InProcessCounters(options.clock);
    this.sessions = sessions;
    for (const shard of shards) {
      for (const [accountId, meta] of Object.entries(shard.data.accounts)) {
        this.#accountCount++;
        if (meta.dueAtMs !== null) this.#due.set(accountId, meta.dueAtMs);
        for (const entry of meta.entries) this.#owners.set(entry, accountId);
      }
    }
    this.accounts = this.#accountStore();
    this.deliveries = this.#deliveryStore();
    this.journal = this.#journalStore();
    this.settings = this.#settingsStore();
  }

  /** Opens the folder (or memory). A folder without store.json is fresh: nothing is read from it. */
  static async open(options: EmbeddedStoreOptions): Promise<OpenedEmbeddedStore> {
    const { dir } = options;
    const path = (name: string): string | null => (dir === null ? null : join(dir, name));
    let storeFile = dir === null ? null : await LowdbFile.open(join(dir, 'store.json'), validateStoreFile);
    const fresh = storeFile === null;
    storeFile ??= LowdbFile.create<StoreFileData>(path('store.json'), { schemaVersion: STORE_SCHEMA_VERSION, settings: {} });
    const shards: LowdbFile<ShardDocument>[] = [];
    const existing = fresh || dir === null ? new Set<string>() : new Set(await readdir(join(dir, 'index')).catch(() => []));
    for (let i = 0; i < SHARDS; i++) {
      const name = `${shardName(i)}.json`;
      const file = existing.has(name) && dir !== null ? await LowdbFile.open(join(dir, 'index', name), validateShard) : null;
      shards.push(file ?? LowdbFile.create<ShardDocument>(dir === null ? null : join(dir, 'index', name), { accounts: {} }));
    }
    if (!fresh && dir !== null) await forgetAccountsWithoutFile(dir, shards);
    const sessions = await EmbeddedSessionStore.open({
      dir: path('sessions'),
      readExisting: !fresh,
      legacyFile: fresh || dir === null ? null : join(dir, 'sessions.json'),
      clock: options.clock,
      ttlMs: options.sessionTtlMs,
      maxSessions: options.maxSessions ?? Number.POSITIVE_INFINITY,
    });
    const store = new EmbeddedStore(options, shards, storeFile, sessions);
    if (fresh) await storeFile.save();
    return { store, fresh };
  }

  health(): Promise<StoreHealth> {
    return Promise.resolve({ ok: true });
  }

  async flush(): Promise<void> {
    const files: { flush(): Promise<void> }[] = [this.#storeFile, this.sessions, ...this.#shards];
    for (const loaded of this.#loaded.values()) {
      files.push(loaded.file);
      if (loaded.journal) files.push(loaded.journal);
    }
    await Promise.all(files.map((f) => f.flush()));
    this.#evict();
  }

  close(): Promise<void> {
    return this.flush();
  }

  /** How many account documents are in memory now (for tests and benchmarks). */
  get loadedAccounts(): number {
    return this.#loaded.size;
  }

  // ---- accounts -------------------------------------------------------------------------

  #accountStore(): AccountStore {
    return {
      lookup: (kind: IndexKind, key: string) => Promise.resolve(this.#owner(`${kind}:${key}`)),
      findByKey: (kind, key) => {
        const owner = this.#owner(`${kind}:${key}`);
        if (owner === null) return Promise.resolve(null);
        return this.#with(owner, (loaded) => (loaded && this.#alive(owner, loaded) ? { accountId: owner, doc: loaded.file.data.doc } : null));
      },
      get: (accountId) => this.#with(accountId, (loaded) => (loaded && this.#alive(accountId, loaded) ? loaded.file.data.doc : null)),
      update: (accountId, change) => this.#update(accountId, change),
      create: (doc, deliveries = []) => this.#create(doc, deliveries),
      delete: (accountId) => this.#delete(accountId),
      list: (page) => Promise.resolve(this.#list(page)),
      count: () => Promise.resolve(this.#accountCount),
      touch: (accountId, atMs) => {
        const located = this.#meta(accountId);
        if (located) {
          located.meta.lastSeenMs = atMs;
          void located.shard.save(false, LAST_SEEN_FLUSH_MS);
        }
        return Promise.resolve();
      },
      idleSince: (beforeMs, limit) => Promise.resolve(this.#idleSince(beforeMs, limit)),
      due: (nowMs, limit) =>
        Promise.resolve(
          [...this.#due.entries()]
            .filter(([, at]) => at <= nowMs)
            .sort((a, b) => a[1] - b[1])
            .slice(0, limit)
            .map(([accountId]) => accountId),
        ),
    };
  }

  /** Not past its lifetime; the document says whether it has one, so a fixture account costs one comparison. */
  #alive(accountId: string, loaded: LoadedAccount): boolean {
    const lifetimeMs = this.#options.accountLifetimeMs ?? 0;
    const { account } = loaded.file.data.doc;
    if (lifetimeMs === 0 || account.origin !== 'generated') return true;
    return !pastLifetime(account, this.#meta(accountId)?.meta.lastSeenMs ?? null, lifetimeMs, this.#options.clock.now().getTime());
  }

  #update<T>(accountId: string, change: (doc: AccountDoc, tx: AccountTx) => T): Promise<T> {
    return this.#with(accountId, (loaded) => this.#updateLoaded(accountId, loaded, change));
  }

  async #updateLoaded<T>(accountId: string, loaded: LoadedAccount | null, change: (doc: AccountDoc, tx: AccountTx) => T): Promise<T> {
    if (!loaded) throw new AccountMissingError(accountId);
    // From here to the writes nothing awaits, so no other change of this account interleaves.
    // The one copy of the change: one that throws, or is refused, leaves the stored document as it was.
    const draft = structuredClone(loaded.file.data.doc);
    const added: DeliveryRecord[] = [];
    const result = change(draft, { addDeliveries: (records) => added.push(...records) });
    const json = JSON.stringify(draft);
    const bytes = storedBytes(json);
    checkAccountBytes(this.#limits, bytes, () => this.#docBytes(loaded), draft);
    checkPendingDeliveries(this.#limits, loaded.pending.size, added.length);
    const entries = indexEntriesOf(draft);
    const { added: newKeys, removed } = diffEntries(loaded.entries, entries);
    for (const entry of newKeys) {
      const owner = this.#owner(entry);
      if (owner !== null && owner !== accountId) {
        const { kind, key } = splitIndexEntry(entry);
        throw new IndexConflictError(kind, key);
      }
    }
    // Stored frozen, not copied again: the change (and whatever it returned) may keep references
    // to the draft and its records, and must not be able to change stored state through them.
    loaded.file.data.doc = deepFreeze(draft);
    // The text is kept for the file's next write; in memory there is none, and only the size is kept.
    Object.assign(loaded.docText, { doc: draft, json: this.#dir === null ? '' : json, bytes });
    for (const record of added) this.#addDelivery(loaded, structuredClone(record));
    loaded.entries = entries;
    const keysChanged = newKeys.length > 0 || removed.length > 0;
    if (keysChanged) this.#setEntries(accountId, newKeys, removed);
    const metaShard = this.#refreshMeta(accountId, loaded, keysChanged);
    await Promise.all([loaded.file.save(), metaShard?.save()]);
    return result;
  }

  /** The stored size of the account's document (serialised once, then kept with it). */
  #docBytes(loaded: LoadedAccount): number {
    return currentText(loaded.docText, loaded.file.data.doc).bytes;
  }

  async #create(doc: AccountDoc, deliveries: readonly DeliveryRecord[]): Promise<boolean> {
    const accountId = doc.account.accountId;
    if (this.#meta(accountId) || this.#loaded.has(accountId)) return false;
    const entries = indexEntriesOf(doc);
    for (const entry of entries) {
      if (this.#owner(entry) !== null) {
        const { kind, key } = splitIndexEntry(entry);
        throw new IndexConflictError(kind, key);
      }
    }
    const docText = emptyDocText();
    const file = LowdbFile.create<AccountFileData>(this.#path('accounts', accountId), { doc: deepFreeze(structuredClone(doc)), deliveries: [] }, this.#onWritten, accountFileText(docText));
    const loaded: LoadedAccount = { file, docText, byId: new Map(), pending: new Set(), finished: 0, entries, journal: null, pins: 1 };
    for (const record of deliveries) this.#addDelivery(loaded, structuredClone(record));
    this.#loaded.set(accountId, loaded);
    const { shard } = this.#metaShard(accountId);
    shard.data.accounts[accountId] = { name: doc.account.name, origin: doc.account.origin, createdAt: doc.account.createdAt, lastSeenMs: null, dueAtMs: null, entries: [] };
    this.#accountCount++;
    this.#setEntries(accountId, [...entries], []);
    this.#refreshMeta(accountId, loaded, true);
    try {
      await Promise.all([file.save(), shard.save()]);
    } finally {
      this.#unpin(loaded);
    }
    return true;
  }

  #delete(accountId: string): Promise<boolean> {
    return this.#with(accountId, (loaded) => this.#deleteLoaded(accountId, loaded));
  }

  async #deleteLoaded(accountId: string, loaded: LoadedAccount | null): Promise<boolean> {
    const located = this.#meta(accountId);
    if (!loaded && !located) return false;
    this.#setEntries(accountId, [], [...(loaded?.entries ?? []), ...(located?.meta.entries ?? [])]);
    if (located) {
      delete located.shard.data.accounts[accountId];
      this.#accountCount--;
    }
    this.#due.delete(accountId);
    this.#loaded.delete(accountId);
    for (const id of loaded?.byId.keys() ?? []) this.#leases.delete(id);
    const removals = [this.#path('accounts', accountId), this.#path('journals', accountId)].flatMap((p) => (p === null ? [] : [p]));
    await Promise.all([
      located?.shard.save(),
      loaded?.file.remove(),
      loaded?.journal?.remove(),
      ...removals.map((p) => rm(p, { force: true })),
    ]);
    return true;
  }

  #list(page: { after?: string; limit: number }): { accounts: AccountSummary[]; next: string | null } {
    const all: AccountSummary[] = [];
    for (const shard of this.#shards) {
      for (const [accountId, m] of Object.entries(shard.data.accounts)) {
        all.push({ accountId, name: m.name, origin: m.origin, createdAt: m.createdAt, lastSeenMs: m.lastSeenMs });
      }
    }
    const order = (a: { createdAt: string; accountId: string }, b: { createdAt: string; accountId: string }): number =>
      a.createdAt === b.createdAt ? a.accountId.localeCompare(b.accountId) : a.createdAt.localeCompare(b.createdAt);
    all.sort(order);
    // The cursor is the last account's place in the order, not only its id: the account may be
    // deleted before the next page is asked for (idle expiry), and the next page still starts after it.
    const after = page.after === undefined ? null : parseCursor(page.after);
    const found = after === null ? 0 : all.findIndex((a) => order(a, after) > 0);
    const start = found === -1 ? all.length : found;
    const accounts = all.slice(start, start + page.limit);
    const last = accounts.at(-1);
    return { accounts, next: start + page.limit < all.length && last ? `${last.createdAt}/${last.accountId}` : null };
  }

  #idleSince(beforeMs: number, limit: number): string[] {
    const idle: { accountId: string; lastMs: number }[] = [];
    for (const shard of this.#shards) {
      for (const [accountId, m] of Object.entries(shard.data.accounts)) {
        if (m.origin !== 'generated') continue;
        const lastMs = m.lastSeenMs ?? Date.parse(m.createdAt);
        if (lastMs < beforeMs) idle.push({ accountId, lastMs });
      }
    }
    return idle
      .sort((a, b) => a.lastMs - b.lastMs)
      .slice(0, limit)
      .map((a) => a.accountId);
  }

  // ---- deliveries -----------------------------------------------------------------------

  #deliveryStore(): DeliveryStore {
    return {
      get: (accountId, deliveryId) => this.#with(accountId, (loaded) => loaded?.byId.get(deliveryId) ?? null),
      list: (accountId, query) => this.#with(accountId, (loaded) => this.#listDeliveries(loaded, query)),
      add: (accountId, records) =>
        this.#with(accountId, async (loaded) => {
          if (!loaded) throw new AccountMissingError(accountId);
          checkPendingDeliveries(this.#limits, loaded.pending.size, records.length);
          for (const record of records) this.#addDelivery(loaded, structuredClone(record));
          await this.#saveAccount(accountId, loaded);
        }),
      update: (accountId, deliveryId, change) => this.#with(accountId, (loaded) => this.#updateDelivery(accountId, loaded, deliveryId, change)),
      due: (accountId, nowMs, limit, skipOrigins = []) =>
        this.#with(accountId, (loaded) => {
          if (!loaded) return [];
          const realNow = performance.now();
          const skip = new Set(skipOrigins);
          const due: DeliveryRecord[] = [];
          for (const id of loaded.pending) {
            const record = loaded.byId.get(id);
            const at = record ? deliveryDueMs(record) : null;
            if (!record || at === null || at > nowMs) continue;
            if (skip.size > 0 && skip.has(originOf(record.target))) continue;
            const lease = this.#leases.get(id);
            if (lease && lease.untilMs > realNow) continue;
            due.push(record);
          }
          due.sort((a, b) => (a.dueAtMs ?? 0) - (b.dueAtMs ?? 0));
          return due.slice(0, limit).map((record) => structuredClone(record));
        }),
      claim: (accountId, deliveryId, owner, leaseMs, dueByMs) =>
        this.#with(accountId, (loaded) => {
          if (!loaded?.pending.has(deliveryId)) return false;
          if (dueByMs !== undefined) {
            const at = deliveryDueMs(loaded.byId.get(deliveryId)!);
            if (at === null || at > dueByMs) return false;
          }
          const realNow = performance.now();
          // A live claim is exclusive, even against its own owner: two rounds of one process must not both send.
          const lease = this.#leases.get(deliveryId);
          if (lease && lease.untilMs > realNow) return false;
          this.#leases.set(deliveryId, { owner, untilMs: realNow + leaseMs });
          return true;
        }),
      release: (_accountId, deliveryId, owner) => {
        if (this.#leases.get(deliveryId)?.owner === owner) this.#leases.delete(deliveryId);
        return Promise.resolve();
      },
      nextDueMs: (accountId) => this.#with(accountId, (loaded) => (loaded ? this.#nextDeliveryDueMs(loaded) : null)),
      cancelPending: (accountId, subscriptionId, note) =>
        this.#with(accountId, async (loaded) => {
          if (!loaded) return 0;
          let cancelled = 0;
          for (const id of [...loaded.pending]) {
            const record = loaded.byId.get(id);
            if (!record || record.subscriptionId !== subscriptionId) continue;
            Object.assign(record, { state: 'failed', dueAtMs: null, nextAttemptAt: null, note });
            this.#finish(loaded, id);
            cancelled++;
          }
          if (cancelled > 0) await this.#saveAccount(accountId, loaded);
          return cancelled;
        }),
      clear: (accountId) =>
        this.#with(accountId, async (loaded) => {
          if (!loaded) return;
          for (const id of loaded.byId.keys()) this.#leases.delete(id);
          loaded.file.data.deliveries = [];
          loaded.byId.clear();
          loaded.pending.clear();
          loaded.finished = 0;
          await this.#saveAccount(accountId, loaded);
        }),
      queue: (nowMs) => this.#queue(nowMs),
    };
  }

  async #queue(nowMs: number): Promise<QueueStats> {
    const due = [...this.#due.entries()].filter(([, at]) => at <= nowMs);
    let dueDeliveries = 0;
    let oldestDueMs: number | null = null;
    for (const [accountId, at] of due.slice(0, QUEUE_STATS_ACCOUNTS)) {
      // 0 is a frozen clock's "due at once": it has no instant to age from.
      if (at > 0) oldestDueMs = earliest(oldestDueMs, at);
      dueDeliveries += await this.#with(accountId, (loaded) => {
        if (!loaded) return 0;
        const { clock } = loaded.file.data.doc;
        const virtualNow = clock.frozenAtMs ?? nowMs + clock.offsetMs;
        let n = 0;
        for (const id of loaded.pending) {
          const at = deliveryDueMs(loaded.byId.get(id)!);
          if (at !== null && at <= virtualNow) n++;
        }
        return n;
      });
    }
    return { dueDeliveries, dueAccounts: due.length, oldestDueMs };
  }

  #listDeliveries(loaded: LoadedAccount | null, query: DeliveryQuery): { total: number; items: DeliveryRecord[] } {
    if (!loaded) return { total: 0, items: [] };
    const list = loaded.file.data.deliveries;
    const items: DeliveryRecord[] = [];
    let total = 0;
    for (let i = list.length - 1; i >= 0; i--) {
      const x = list[i]!;
      if (query.subscriptionId !== undefined && x.subscriptionId !== query.subscriptionId) continue;
      if (query.locationId !== undefined && x.locationId !== query.locationId) continue;
      if (query.state !== undefined && x.state !== query.state) continue;
      if (query.kind !== undefined && x.kind !== query.kind) continue;
      if (total >= query.offset && items.length < query.limit) items.push(structuredClone(x));
      total++;
    }
    return { total, items };
  }

  async #updateDelivery<T>(accountId: string, loaded: LoadedAccount | null, deliveryId: string, change: (record: DeliveryRecord) => T): Promise<T | null> {
    const current = loaded?.byId.get(deliveryId);
    if (!loaded || !current) return null;
    const changed = structuredClone(current);
    const result = change(changed);
    // A copy is stored: the change may keep references to its draft (see #updateLoaded).
    const draft = structuredClone(changed);
    const list = loaded.file.data.deliveries;
    list[list.indexOf(current)] = draft;
    loaded.byId.set(deliveryId, draft);
    this.#leases.delete(deliveryId);
    if (draft.state === 'pending') loaded.pending.add(deliveryId);
    else if (loaded.pending.has(deliveryId)) this.#finish(loaded, deliveryId);
    await this.#saveAccount(accountId, loaded);
    return result;
  }

  #addDelivery(loaded: LoadedAccount, record: DeliveryRecord): void {
    loaded.file.data.deliveries.push(record);
    loaded.byId.set(record.deliveryId, record);
    if (record.state === 'pending') loaded.pending.add(record.deliveryId);
    else loaded.finished++;
  }

  /** A delivery left the pending state: count it, and drop the oldest finished one beyond the log limit. */
  #finish(loaded: LoadedAccount, deliveryId: string): void {
    loaded.pending.delete(deliveryId);
    loaded.finished++;
    const list = loaded.file.data.deliveries;
    while (loaded.finished > this.#options.deliveryLogLimit) {
      // Finished deliveries are mostly in creation order, so the oldest is near the front.
      const oldest = list.findIndex((x) => x.state !== 'pending');
      if (oldest < 0) break;
      loaded.byId.delete(list[oldest]!.deliveryId);
      list.splice(oldest, 1);
      loaded.finished--;
    }
  }

  #nextDeliveryDueMs(loaded: LoadedAccount): number | null {
    let min: number | null = null;
    for (const id of loaded.pending) min = earliest(min, deliveryDueMs(loaded.byId.get(id)!));
    return min;
  }

  /** Saves the account's file and, when its summary changed, its index shard (the caller holds the account, see #with). */
  async #saveAccount(accountId: string, loaded: LoadedAccount): Promise<void> {
    const metaShard = this.#refreshMeta(accountId, loaded);
    await Promise.all([loaded.file.save(), metaShard?.save()]);
  }

  // ---- journal --------------------------------------------------------------------------

  #journalStore(): JournalStore {
    return {
      append: (accountId, entry, announce) =>
        this.#with(accountId, (loaded) => {
          // The journal of an account in use is open already: the append is then synchronous.
          if (loaded?.journal) return this.#appendTo(loaded.journal, entry, announce);
          return this.#journalOf(accountId, loaded).then((journal) => (journal ? this.#appendTo(journal, entry, announce) : undefined));
        }),
      list: (accountId, limit) =>
        this.#with(accountId, async (loaded) => {
          const entries = (await this.#journalOf(accountId, loaded))?.data.entries ?? [];
          return entries.slice(-Math.min(limit, JOURNAL_LIMIT)).reverse();
        }),
      clear: (accountId) =>
        this.#with(accountId, async (loaded) => {
          const journal = await this.#journalOf(accountId, loaded);
          if (!journal) return;
          journal.data.entries = [];
          await journal.save(false, JOURNAL_FLUSH_MS);
        }),
    };
  }

  #appendTo(journal: LowdbFile<JournalFileData>, entry: JournalEntry, announce: Announcement | undefined): Promise<void> {
    const entries = journal.data.entries;
    const seq = (journal.data.lastSeq ?? entries.at(-1)?.seq ?? 0) + 1;
    journal.data.lastSeq = seq;
    entries.push({ ...entry, seq });
    if (entries.length > JOURNAL_LIMIT + JOURNAL_SLACK) entries.splice(0, entries.length - JOURNAL_LIMIT);
    // A lazy save only schedules the write: its promise is already settled.
    void journal.save(false, JOURNAL_FLUSH_MS);
    return announce ? this.events.publish(announce.channel, announce.message) : Promise.resolve();
  }

  async #journalOf(accountId: string, loaded: LoadedAccount | null): Promise<LowdbFile<JournalFileData> | null> {
    if (!loaded) return null;
    if (!loaded.journal) {
      const path = this.#path('journals', accountId);
      const opened = path === null ? null : await LowdbFile.open(path, validateJournal, this.#onWritten).catch(() => null);
      // Another call may have opened it while this one waited.
      loaded.journal ??= opened ?? LowdbFile.create<JournalFileData>(path, { entries: [] }, this.#onWritten);
    }
    return loaded.journal;
  }

  // ---- settings -------------------------------------------------------------------------

  #settingsStore(): Settings {
    const settings = (): Record<string, string> => this.#storeFile.data.settings;
    return {
      get: (name) => Promise.resolve(settings()[name] ?? null),
      set: async (name, value) => {
        settings()[name] = value;
        await this.#storeFile.save();
      },
      setIfAbsent: async (name, value) => {
        const existing = settings()[name];
        if (existing !== undefined) return existing;
        settings()[name] = value;
        await this.#storeFile.save();
        return value;
      },
    };
  }

  // ---- loading, the index and the cache --------------------------------------------------

  #path(folder: string, accountId: string): string | null {
    return this.#dir === null ? null : join(this.#dir, folder, `${accountId}.json`);
  }

  /**
   * Runs `fn` with the account (null when it does not exist) held in the cache: an account in
   * use is never evicted, since a change made to an evicted copy could be overwritten by a
   * copy loaded again from its file meanwhile, and a lazy write of an evicted copy would be
   * missed by flush and close.
   */
  #with<T>(accountId: string, fn: (loaded: LoadedAccount | null) => T | Promise<T>): Promise<T> {
    const cached = this.#loaded.get(accountId);
    if (!cached) return this.#withLoaded(accountId, fn);
    // An account in the cache (the usual case) runs `fn` at once: no turn of the event loop
    // before it, and none after it when it is synchronous.
    this.#pin(accountId, cached);
    let result: T | Promise<T>;
    try {
      result = fn(cached);
    } catch (error) {
      this.#unpin(cached);
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    if (!(result instanceof Promise)) {
      this.#unpin(cached);
      return Promise.resolve(result);
    }
    return result.finally(() => this.#unpin(cached));
  }

  async #withLoaded<T>(accountId: string, fn: (loaded: LoadedAccount | null) => T | Promise<T>): Promise<T> {
    const loaded = await this.#acquire(accountId);
    try {
      return await fn(loaded);
    } finally {
      if (loaded) this.#unpin(loaded);
    }
  }

  /** Takes a pin on a cached account and makes it the most recently used (eviction takes the least recently used first). */
  #pin(accountId: string, loaded: LoadedAccount): void {
    this.#loaded.delete(accountId);
    this.#loaded.set(accountId, loaded);
    loaded.pins++;
  }

  #unpin(loaded: LoadedAccount): void {
    loaded.pins--;
    this.#evict();
  }

  /**
   * The account, loaded from disk on first use, with a pin taken for the caller (see #with);
   * null when it does not exist. The pin is taken synchronously, before any other operation can
   * run an eviction: also for callers that wait for a load under way.
   */
  #acquire(accountId: string): Promise<LoadedAccount | null> {
    const loaded = this.#loaded.get(accountId);
    if (loaded) {
      this.#pin(accountId, loaded);
      return Promise.resolve(loaded);
    }
    const path = this.#path('accounts', accountId);
    if (path === null || !this.#meta(accountId)) return Promise.resolve(null);
    let loading = this.#loading.get(accountId);
    if (!loading) {
      const started: { waiters: number; promise: Promise<LoadedAccount | null> } = { waiters: 0, promise: Promise.resolve(null) };
      const docText = emptyDocText();
      started.promise = LowdbFile.open(path, validateAccountFile, this.#onWritten, accountFileText(docText))
        .then((file) => {
          if (!file) return null;
          deepFreeze(file.data.doc);
          // One pin per caller waiting for this load.
          const account: LoadedAccount = { file, docText, byId: new Map(), pending: new Set(), finished: 0, entries: indexEntriesOf(file.data.doc), journal: null, pins: started.waiters };
          const records = file.data.deliveries;
          file.data.deliveries = [];
          for (const record of records) this.#addDelivery(account, record);
          this.#loaded.set(accountId, account);
          this.#restoreEntries(accountId, account);
          return account;
        })
        .finally(() => this.#loading.delete(accountId));
      loading = started;
      this.#loading.set(accountId, loading);
    }
    loading.waiters++;
    return loading.promise;
  }

  /**
   * Puts back the document's keys that the index lacks: a process killed after writing the
   * account's file but before the index shards of its change (see forgetAccountsWithoutFile)
   * leaves keys that would otherwise never resolve. A key another account took meanwhile stays
   * with it.
   */
  #restoreEntries(accountId: string, loaded: LoadedAccount): void {
    const missing = [...loaded.entries].filter((entry) => this.#owner(entry) === null);
    if (missing.length === 0) return;
    this.#setEntries(accountId, missing, []);
    const located = this.#meta(accountId);
    if (!located) return;
    located.meta.entries = [...new Set([...located.meta.entries, ...missing])];
    void located.shard.save().catch(() => undefined);
  }

  /** Called when a file's writes are all done: an account that waited for them may now be evicted. */
  readonly #onWritten = (): void => this.#evict();

  /**
   * Drops least recently used accounts beyond the cache's size (in accounts, and in bytes of
   * their files), once nobody uses them and their writes are done.
   */
  #evict(): void {
    const limit = this.#options.cacheSize ?? Number.POSITIVE_INFINITY;
    const byteLimit = this.#options.cacheBytes ?? Number.POSITIVE_INFINITY;
    if (this.#dir === null) return;
    const bytesOf = (loaded: LoadedAccount): number => loaded.file.size + (loaded.journal?.size ?? 0);
    let bytes = 0;
    if (byteLimit !== Number.POSITIVE_INFINITY) for (const loaded of this.#loaded.values()) bytes += bytesOf(loaded);
    if (this.#loaded.size <= limit && bytes <= byteLimit) return;
    for (const [accountId, loaded] of this.#loaded) {
      if (this.#loaded.size <= limit && bytes <= byteLimit) return;
      if (loaded.pins > 0 || loaded.file.busy || loaded.journal?.busy) continue;
      this.#loaded.delete(accountId);
      bytes -= bytesOf(loaded);
    }
  }

  /** The account owning the key, or null. */
  #owner(entry: string): string | null {
    return this.#owners.get(entry) ?? null;
  }

  /** Adds and removes index keys of the account in memory; its shard is written with its summary. */
  #setEntries(accountId: string, added: readonly string[], removed: readonly string[]): void {
    for (const entry of removed) if (this.#owners.get(entry) === accountId) this.#owners.delete(entry);
    for (const entry of added) this.#owners.set(entry, accountId);
  }

  #metaShard(accountId: string): { shard: LowdbFile<ShardDocument> } {
    return { shard: this.#shards[hash32(accountId) % SHARDS]! };
  }

  #meta(accountId: string): { shard: LowdbFile<ShardDocument>; meta: AccountMeta } | null {
    const { shard } = this.#metaShard(accountId);
    const meta = shard.data.accounts[accountId];
    return meta ? { shard, meta } : null;
  }

  /** Recomputes the account's due time, name and keys in the index; returns the shard when they changed. */
  #refreshMeta(accountId: string, loaded: LoadedAccount, keysChanged = false): LowdbFile<ShardDocument> | null {
    const located = this.#meta(accountId);
    if (!located) return null;
    const { doc } = loaded.file.data;
    const dueAtMs = processDueMs(earliest(nextRunDueMs(doc), this.#nextDeliveryDueMs(loaded)), doc.clock);
    if (dueAtMs === null) this.#due.delete(accountId);
    else this.#due.set(accountId, dueAtMs);
    const { meta } = located;
    if (meta.dueAtMs === dueAtMs && meta.name === doc.account.name && !keysChanged) return null;
    meta.dueAtMs = dueAtMs;
    meta.name = doc.account.name;
    if (keysChanged) meta.entries = [...loaded.entries];
    return located.shard;
  }
}

const shardName = (i: number): string => i.toString(16).padStart(2, '0');

/** An account document's JSON, kept with it while it is the stored one (`doc`). */
interface DocText {
  doc: DeepReadonly<AccountDoc> | null;
  json: string;
  bytes: number;
}

const emptyDocText = (): DocText => ({ doc: null, json: '', bytes: 0 });

/** `text`, made the JSON of `doc` first when it is of another document. */
function currentText(text: DocText, doc: DeepReadonly<AccountDoc>): DocText {
  if (text.doc !== doc) {
    const json = JSON.stringify(doc);
    Object.assign(text, { doc, json, bytes: storedBytes(json) });
  }
  return text;
}

/** The text of an account's file: the document's JSON as the last change made it (serialised again only when it is not the stored one), and the delivery log. */
const accountFileText =
  (text: DocText) =>
  (data: AccountFileData): string =>
    `{"doc":${currentText(text, data.doc).json},"deliveries":${JSON.stringify(data.deliveries)}}`;

/** A cursor of AccountStore.list: `<createdAt>/<accountId>` (an ISO time has no "/"). */
function parseCursor(cursor: string): { createdAt: string; accountId: string } {
  const slash = cursor.indexOf('/');
  return slash === -1 ? { createdAt: '', accountId: cursor } : { createdAt: cursor.slice(0, slash), accountId: cursor.slice(slash + 1) };
}

/**
 * A change writes several files (the account's, index shards), each atomically but not all at
 * once; a process killed in between leaves some written and some not. An account in the index
 * whose file is missing was being created or deleted then (neither was acknowledged): it does
 * not exist. Costs one directory listing at open, no file read.
 */
async function forgetAccountsWithoutFile(dir: string, shards: LowdbFile<ShardDocument>[]): Promise<void> {
  const files = new Set(await readdir(join(dir, 'accounts')).catch(() => []));
  for (const shard of shards) {
    const missing = Object.keys(shard.data.accounts).filter((accountId) => !files.has(`${accountId}.json`));
    for (const accountId of missing) delete shard.data.accounts[accountId];
    if (missing.length > 0) await shard.save();
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function validateStoreFile(parsed: unknown): StoreFileData {
  if (!isObject(parsed) || parsed['schemaVersion'] !== STORE_SCHEMA_VERSION || !isObject(parsed['settings'])) {
    throw new StoreFileError(`store.json is not a water-sandbox store of schemaVersion ${STORE_SCHEMA_VERSION}; point DATA_DIR at an empty folder to start afresh`);
  }
  return parsed as unknown as StoreFileData;
}

function validateShard(parsed: unknown): ShardDocument {
  if (!isObject(parsed) || !isObject(parsed['accounts'])) throw new StoreFileError('an index shard of DATA_DIR is not valid');
  return parsed as unknown as ShardDocument;
}

function validateAccountFile(parsed: unknown): AccountFileData {
  const doc = isObject(parsed) ? parsed['doc'] : undefined;
  if (!isObject(doc) || doc['schemaVersion'] !== ACCOUNT_SCHEMA_VERSION || !Array.isArray((parsed as { deliveries?: unknown }).deliveries)) {
    throw new StoreFileError(`an account file of DATA_DIR is not of schemaVersion ${ACCOUNT_SCHEMA_VERSION}`);
  }
  return parsed as AccountFileData;
}

function validateJournal(parsed: unknown): JournalFileData {
  return isObject(parsed) && Array.isArray(parsed['entries']) ? (parsed as unknown as JournalFileData) : { entries: [] };
}

