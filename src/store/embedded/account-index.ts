import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

import { internalError, present } from '../../core/errors.js';
import type { AccountDoc, DeepReadonly } from '../data.js';
import { earliest, nextRunDueMs, processDueMs, splitIndexEntry } from '../derived.js';
import { IndexConflictError, type AccountSummary } from '../store.js';
import { takeClosedState, writeClosedState } from './closed-index.js';
import { KeyFilter } from './key-filter.js';
import { KeyJournal } from './key-journal.js';
import { migrateLegacyShards, removeIndexFiles } from './legacy-index.js';
import { isObject } from './loaded-account.js';
import { PagedShards, type Lease, type Shard } from './paged-shards.js';

export interface AccountMeta {
  name: string;
  origin: 'fixture' | 'generated';
  createdAt: string;
  lastSeenMs: number | null;
  /** When the account's next work falls due on the process clock; null when none is scheduled. */
  dueAtMs: number | null;
  /** The account's index keys (see indexEntriesOf). */
  entries: string[];
}

/**
 * Keys the sandbox makes as random secrets: no other account can come to hold one, so taking
 * one out needs no read of its shard to see whose it is (a code exchanged, a token revoked).
 */
const SECRET_KINDS: ReadonlySet<string> = new Set(['authorizationCode', 'accessToken', 'refreshToken']);

/** Records of each kind kept in memory besides the pinned ones (see PagedShards): a few megabytes. */
export const INDEX_CACHE_RECORDS = 10_000;

/**
 * The keys of a change whose shards a lease is to read: `added`, unless the journal has the key
 * or its shard's filter clears it; `removed`, unless the journal has it or it is a secret of the
 * account (SECRET_KINDS); `read`, always.
 */
export interface KeyShardsNeeded {
  added?: Iterable<string>;
  removed?: Iterable<string>;
  read?: Iterable<string>;
}

export interface AccountIndexOptions {
  /** Records of each kind (summaries, keys) kept in memory besides the pinned ones. */
  cacheRecords?: number | undefined;
  /** Keys the journal holds before it is distributed to the shards (key-journal.ts). */
  journalKeys?: number | undefined;
}

/**
 * The index, on disk and read a shard at a time (paged-shards.ts), so its memory follows the
 * accounts in use, not the accounts stored:
 *
 *   index/summaries/<000-fff>.json|.log  each account's summary (name, origin, creation, last
 *                                        request, due time, keys), by hash of the account
 *   index/keys/<000-fff>.json|.log       each key's account, by hash of the key
 *   index/keys/journal.log (and .old)    every write of a key, until its lines are appended to the
 *                                        key shards' logs (key-journal.ts)
 *
 * What is held whole in memory is what the dispatcher asks for every tick (the accounts with
 * work due, a few) and the count; the accounts list and the idle sweep read the summaries a
 * shard at a time. The summaries' shard of every account the account cache holds is pinned
 * (pinAccount), so the synchronous steps of a change (its keys' check and write, its summary)
 * find what they need in memory; a change of keys leases first the shards of the keys it takes
 * out and of the new keys it cannot tell are free without them. A key shard read once leaves a
 * filter of its keys (key-filter.ts, 512 bytes): a new key the filter clears is written without
 * reading the shard, so a subscription, a token or a new account's keys do not each read a
 * random shard.
 *
 * A change writes a line of its summary to its shard's log (shard-log.ts) and its keys to the
 * journal, and is acknowledged once they are on disk with the account's file. A kill between
 * them leaves some written and not others: an account in the summaries without a file is
 * forgotten at open, a key of a missing account resolves to nothing (and may be taken), and a
 * key of an account's document missing from the index is put back when the account is read
 * (restore).
 */
export class AccountIndex {
  readonly #summaries: PagedShards<AccountMeta>;
  readonly #keys: PagedShards<string>;
  /** Accounts with work scheduled, and when it falls due on the process clock. */
  readonly #due = new Map<string, number>();
  /** Which keys each key shard read so far may hold: a new key it cannot hold is written without reading the shard. */
  readonly #filters = new Map<number, KeyFilter>();
  /** Every key written since the key shards' files were; set by open. */
  #journal!: KeyJournal;
  #count = 0;
  /** index/ of the store's folder; null in memory. */
  readonly #folder: string | null;

  private constructor(dir: string | null, cacheRecords: number) {
    const indexFolder = dir === null ? null : join(dir, 'index');
    this.#folder = indexFolder;
    const folder = (kind: string): string | null => (indexFolder === null ? null : join(indexFolder, kind));
    this.#summaries = new PagedShards(folder('summaries'), cacheRecords, isAccountMeta);
    this.#keys = new PagedShards(folder('keys'), cacheRecords, (value): value is string => typeof value === 'string');
    this.#keys.onRead = (shard) => {
      for (const [entry, owner] of this.#journal.valuesOf(shard.number)) shard.setUnlogged(entry, owner);
      this.#filters.set(shard.number, KeyFilter.of(shard.entries().map(([key]) => key)));
    };
  }

  /**
   * The index of `dir` (null: memory). A fresh folder's index starts empty (files of ours left
   * there by an earlier attempt are removed); an existing one's summaries are read once, a shard
   * at a time, for the count and the due times, and the index of an earlier version is
   * converted first (legacy-index.ts).
   */
  static async open(dir: string | null, fresh: boolean, options: AccountIndexOptions = {}): Promise<AccountIndex> {
    const index = new AccountIndex(dir, options.cacheRecords ?? INDEX_CACHE_RECORDS);
    const openJournal = async (): Promise<void> => {
      index.#journal = await KeyJournal.open(
        index.#keys.folder,
        (entry) => index.#keys.shardOf(entry),
        (byShard) => index.#appendToKeyShards(byShard),
        options.journalKeys,
      );
      index.#journal.resume();
    };
    if (dir === null) {
      await openJournal();
      return index;
    }
    if (fresh) {
      await removeIndexFiles(join(dir, 'index'));
    } else {
      await migrateLegacyShards(join(dir, 'index'), {
        summaryShard: (accountId) => index.#summaries.shardOf(accountId),
        keyShard: (entry) => index.#keys.shardOf(entry),
        isSummary: isAccountMeta,
      });
    }
    for (const shards of [index.#summaries, index.#keys])
      shards.knowListing(fresh ? [] : await readdir(present(shards.folder, 'a folder')).catch(() => []));
    await openJournal();
    if (!fresh) await index.#readAtOpen(dir);
    return index;
  }

  /** Writes what waits: the logs' and the journal's appends, and the last-request times not yet in the shards' files. */
  async flush(): Promise<void> {
    // The journal first: its distribution appends to the key shards, which their flush then waits for.
    await this.#journal.flush();
    await Promise.all([this.#summaries.flush(), this.#keys.flush()]);
  }

  /** Appends the journal's lines of each key shard to the shard's log (a distribution of the journal), some shards side by side. */
  async #appendToKeyShards(byShard: ReadonlyMap<number, ReadonlyMap<string, string | null>>): Promise<void> {
    const BATCH = 32;
    const shards = [...byShard];
    for (let i = 0; i < shards.length; i += BATCH) {
      await Promise.all(
        shards.slice(i, i + BATCH).map(([number, lines]) => this.#keys.appendLines(number, [...lines])),
      );
    }
  }

  /** Folds every log of a shard in memory into its file (at close: the next start reads the files alone). */
  async fold(): Promise<void> {
    await Promise.all([this.#summaries.fold(), this.#keys.fold()]);
  }

  /** At a clean close, once everything else is written: the count and due times, so that the next open reads no summary (closed-index.ts). */
  async writeClosedState(): Promise<void> {
    if (this.#folder === null) return;
    await writeClosedState(this.#folder, { count: this.#count, due: [...this.#due] });
  }

  get count(): number {
    return this.#count;
  }

  /** Key shards read so far (for tests and benchmarks). */
  get keyShardReads(): number {
    return this.#keys.reads;
  }

  /** Summary shards read so far (for tests). */
  get summaryShardReads(): number {
    return this.#summaries.reads;
  }

  /** Index records in memory now, summaries and keys (for tests and benchmarks), the journal's keys with them. */
  get residentRecords(): number {
    return this.#summaries.residentRecords + this.#keys.residentRecords + this.#journal.size;
  }

  /**
   * The account owning the key: null when none (or when it names an account that does not
   * exist, see the class); undefined when that cannot be told without a read (ownerOf reads).
   */
  ownerNow(entry: string): string | null | undefined {
    const owner = this.#knownOwner(entry);
    if (owner === undefined) return undefined;
    if (owner === null) return null;
    const summaries = this.#summaries.resident(this.#summaries.shardOf(owner));
    if (!summaries) return undefined;
    return summaries.get(owner) ? owner : null;
  }

  /** The account owning the key, or null; reads the shards it needs. */
  async ownerOf(entry: string): Promise<string | null> {
    const now = this.ownerNow(entry);
    if (now !== undefined) return now;
    const owner = await this.#keys.use(this.#keys.shardOf(entry), (shard) => shard.get(entry));
    if (owner === undefined) return null;
    return (await this.exists(owner)) ? owner : null;
  }

  /** The key's account known without a read (null: none), from the journal or the key's shard in memory; undefined when a read is needed. */
  #knownOwner(entry: string): string | null | undefined {
    const journaled = this.#journal.get(entry);
    if (journaled !== undefined) return journaled;
    const number = this.#keys.shardOf(entry);
    const shard = this.#keys.resident(number);
    if (shard) return shard.get(entry) ?? null;
    return this.#keys.knownEmpty(number) ? null : undefined;
  }

  /** Whether the account is in the index; reads its shard when needed. */
  exists(accountId: string): Promise<boolean> {
    const resident = this.#summaries.resident(this.#summaries.shardOf(accountId));
    if (resident) return Promise.resolve(resident.get(accountId) !== undefined);
    if (this.#summaries.knownEmpty(this.#summaries.shardOf(accountId))) return Promise.resolve(false);
    return this.#summaries.use(this.#summaries.shardOf(accountId), (shard) => shard.get(accountId) !== undefined);
  }

  /** Whether the account is in the index (its summaries' shard must be in memory: leased or pinned). */
  has(accountId: string): boolean {
    return this.#residentMeta(accountId) !== undefined;
  }

  /**
   * Pins in memory the account's summaries' shard, the key shards a change needs (see
   * KeyShardsNeeded), and the summaries' shards of the accounts that own those keys now: what
   * create, a change of keys, delete and restore read and write synchronously. Release it when done.
   */
  async lease(accountId: string | null, keys: KeyShardsNeeded): Promise<Lease> {
    const all = this.#toRead(keys);
    const leased = await this.#keys.lease(all.map((entry) => this.#keys.shardOf(entry)));
    const owners = new Set<string>();
    for (const entry of [...(keys.added ?? []), ...all]) {
      const owner = this.#knownOwner(entry);
      if (typeof owner === 'string') owners.add(owner);
    }
    if (accountId !== null) owners.add(accountId);
    const summaries = await this.#summaries.lease([...owners].map((owner) => this.#summaries.shardOf(owner)));
    return {
      release: () => {
        summaries.release();
        leased.release();
      },
    };
  }

  /**
   * Whether what a change writes is in memory now, or needs no read: the account's summaries'
   * shard and the key shards of `keys` (the owners' shards, which checkFree reads, may not be).
   */
  inMemory(accountId: string | null, keys: KeyShardsNeeded): boolean {
    if (accountId !== null && !this.#summaries.resident(this.#summaries.shardOf(accountId))) return false;
    return this.#toRead(keys).every((entry) => this.#knownOwner(entry) !== undefined);
  }

  /** Whether what remove(accountId, entries) writes is in memory now (see leaseRemoval). */
  removable(accountId: string, entries: Iterable<string>): boolean {
    const shard = this.#summaries.resident(this.#summaries.shardOf(accountId));
    if (!shard) return false;
    return this.inMemory(accountId, { removed: [...entries, ...(shard.get(accountId)?.entries ?? [])] });
  }

  /** The keys whose shards must be read (see KeyShardsNeeded). */
  #toRead({ added = [], removed = [], read = [] }: KeyShardsNeeded): string[] {
    const unknown = (entry: string): boolean => this.#knownOwner(entry) === undefined;
    return [
      ...[...added].filter((entry) => unknown(entry) && !this.#freeWithoutRead(entry)),
      ...[...removed].filter((entry) => unknown(entry) && !this.#removableWithoutRead(entry)),
      ...[...read].filter(unknown),
    ];
  }

  /** A lease of the account's shard and of its keys' (those given and those its summary lists), for delete. */
  async leaseRemoval(accountId: string, entries: Iterable<string>): Promise<Lease> {
    const listed = await this.#summaries.use(this.#summaries.shardOf(accountId), (shard) => [
      ...(shard.get(accountId)?.entries ?? []),
    ]);
    return this.lease(accountId, { removed: [...entries, ...listed] });
  }

  /** Holds the account's summaries' shard in memory while the account cache holds the account (it must be leased now). */
  pinAccount(accountId: string): void {
    this.#summaries.pin(this.#summaries.shardOf(accountId));
  }

  unpinAccount(accountId: string): void {
    this.#summaries.unpin(this.#summaries.shardOf(accountId));
  }

  /**
   * Throws IndexConflictError for the first of `entries` another account owns (see lease and
   * inMemory: each in memory, or cleared by its shard's filter). A key naming an account that
   * does not exist is free; one naming an account whose shard is not in memory (it took the key
   * since the lease) is taken, to be safe.
   */
  checkFree(accountId: string | null, entries: Iterable<string>): void {
    for (const entry of entries) {
      const known = this.#knownOwner(entry);
      if (known === undefined && this.#freeWithoutRead(entry)) continue;
      if (known === undefined) throw internalError('the shard of a key to check is not in memory');
      const owner = known;
      if (owner === null || owner === accountId) continue;
      const ownerShard = this.#summaries.resident(this.#summaries.shardOf(owner));
      if (ownerShard && ownerShard.get(owner) === undefined) continue;
      const { kind, key } = splitIndexEntry(entry);
      throw new IndexConflictError(kind, key);
    }
  }

  /**
   * Adds and removes index keys of the account; the writes, to await with the account's file.
   * A key taken out needs its shard in memory; a new one is written without its shard when the
   * shard is not in memory (checkFree cleared it by the filter).
   */
  setEntries(accountId: string, added: Iterable<string>, removed: Iterable<string>): Promise<void> {
    const lines: [string, string | null][] = [];
    for (const entry of new Set(removed)) {
      const owner = this.#knownOwner(entry);
      if (owner === undefined ? this.#removableWithoutRead(entry) : owner === accountId) lines.push([entry, null]);
    }
    for (const entry of new Set(added)) {
      const number = this.#keys.shardOf(entry);
      // A shard never written gets its filter now: it holds what is written to it from here on.
      if (this.#keys.knownEmpty(number) && !this.#filters.has(number)) this.#filters.set(number, new KeyFilter());
      this.#filters.get(number)?.add(entry);
      lines.push([entry, accountId]);
    }
    for (const [entry, owner] of lines) this.#keys.resident(this.#keys.shardOf(entry))?.setUnlogged(entry, owner);
    return this.#journal.append(lines);
  }

  /** A key of the account that it alone can hold (SECRET_KINDS): taken out with a line, its shard unread (and its owner unknown). */
  #removableWithoutRead(entry: string): boolean {
    return SECRET_KINDS.has(splitIndexEntry(entry).kind);
  }

  /** A key the journal does not have whose shard was never written, or was read once and its filter says it is not there. */
  #freeWithoutRead(entry: string): boolean {
    const number = this.#keys.shardOf(entry);
    if (this.#keys.knownEmpty(number)) return true;
    const filter = this.#filters.get(number);
    return filter !== undefined && !filter.mayHave(entry);
  }

  /** The account's last request (it must be held by the account cache, or leased). */
  lastSeenMs(accountId: string): number | null {
    return present(this.#residentMeta(accountId), 'the summary of an account held').lastSeenMs;
  }

  /** Records the account's last request; its shard's file takes it in within a minute. */
  async touch(accountId: string, atMs: number): Promise<void> {
    await this.#summaries.use(this.#summaries.shardOf(accountId), (shard) => {
      const meta = shard.get(accountId);
      if (!meta) return;
      meta.lastSeenMs = atMs;
      shard.changedLazily();
    });
  }

  /** Enters a new account with no keys yet (its summary is logged with its keys, see refresh; its shard leased). */
  add(doc: DeepReadonly<AccountDoc>): void {
    const { accountId, name, origin, createdAt } = doc.account;
    const shard = this.#summaryShard(accountId);
    // Set without a line: refresh logs the summary, keys and all, with the account's first write.
    shard.setUnlogged(accountId, { name, origin, createdAt, lastSeenMs: null, dueAtMs: null, entries: [] });
    this.#count++;
  }

  /**
   * Takes the account and `entries` (with the keys its summary lists) out (leaseRemoval first);
   * the writes of its removal, or null when it was not in the index.
   */
  remove(accountId: string, entries: Iterable<string>): Promise<void> | null {
    const shard = this.#summaryShard(accountId);
    const meta = shard.get(accountId);
    const keys = this.setEntries(accountId, [], [...entries, ...(meta?.entries ?? [])]);
    this.#due.delete(accountId);
    if (!meta) return null;
    this.#count--;
    return Promise.all([shard.set(accountId, null), keys]).then(() => undefined);
  }

  /**
   * Recomputes the account's due time (from its scenario runs and `deliveryDueMs`), name and,
   * when given, keys; when they changed, the write of its summary, to be awaited with the
   * account's file (the account is held by the account cache, so its shard is in memory).
   */
  refresh(
    accountId: string,
    doc: DeepReadonly<AccountDoc>,
    deliveryDueMs: number | null,
    entries?: ReadonlySet<string>,
  ): Promise<void> | null {
    const shard = this.#summaryShard(accountId);
    const meta = shard.get(accountId);
    if (!meta) return null;
    const dueAtMs = processDueMs(earliest(nextRunDueMs(doc), deliveryDueMs), doc.clock);
    if (dueAtMs === null) this.#due.delete(accountId);
    else this.#due.set(accountId, dueAtMs);
    if (meta.dueAtMs === dueAtMs && meta.name === doc.account.name && !entries) return null;
    meta.dueAtMs = dueAtMs;
    meta.name = doc.account.name;
    if (entries) meta.entries = [...entries];
    return shard.set(accountId, meta);
  }

  /**
   * Puts back keys of the account's document that the index lacks: a process killed after
   * writing the account's file but before the key shards of its change leaves keys that would
   * otherwise never resolve. A key another account took meanwhile stays with it. Run when the
   * account is read, before it is used; `current` gives its keys.
   */
  async restore(accountId: string, current: () => ReadonlySet<string>): Promise<void> {
    if ([...current()].every((entry) => this.ownerNow(entry) === accountId)) return;
    const lease = await this.lease(accountId, { read: current() });
    try {
      const entries = [...current()];
      if (!this.inMemory(accountId, { read: entries })) return;
      // Null: no owner, or one that does not exist (see the class).
      const missing = entries.filter((entry) => this.ownerNow(entry) === null);
      const meta = this.#residentMeta(accountId);
      if (missing.length === 0 || !meta) return;
      meta.entries = [...new Set([...meta.entries, ...missing])];
      await Promise.all([this.setEntries(accountId, missing, []), this.#summaryShard(accountId).set(accountId, meta)]);
    } finally {
      lease.release();
    }
  }

  /** Accounts whose work is due at `nowMs` on the process clock, with when, unordered. */
  dueAt(nowMs: number): [string, number][] {
    return [...this.#due.entries()].filter(([, at]) => at <= nowMs);
  }

  /**
   * Accounts in creation order, `limit` at a time, after the cursor of the previous page. The
   * summaries are read a shard at a time, keeping the first `limit` after the cursor: a page
   * costs a read of the whole index (the admin's list and a reset use it, not requests).
   */
  async list(page: { after?: string; limit: number }): Promise<{ accounts: AccountSummary[]; next: string | null }> {
    // The cursor is the last account's place in the order, not only its id: the account may be
    // deleted before the next page is asked for (idle expiry), and the next page still starts after it.
    const after = page.after === undefined ? null : parseCursor(page.after);
    const first = new Kept<AccountSummary>(page.limit + 1, byCreation);
    await this.#scanSummaries((accountId, meta) => {
      const summary = summaryOf(accountId, meta);
      if (after === null || byCreation(summary, after) > 0) first.offer(summary);
    });
    const kept = first.sorted();
    const accounts = kept.slice(0, page.limit);
    const last = accounts.at(-1);
    return {
      accounts,
      next: kept.length > page.limit && last ? `${last.createdAt}/${last.accountId}` : null,
    };
  }

  /** Generated accounts whose last request (or creation) came before `beforeMs`, the longest idle first. */
  async idleSince(beforeMs: number, limit: number): Promise<string[]> {
    const idle = new Kept<{ accountId: string; lastMs: number }>(limit, (a, b) => a.lastMs - b.lastMs);
    await this.#scanSummaries((accountId, meta) => {
      if (meta.origin !== 'generated') return;
      const lastMs = meta.lastSeenMs ?? Date.parse(meta.createdAt);
      if (lastMs < beforeMs) idle.offer({ accountId, lastMs });
    });
    return idle.sorted().map((a) => a.accountId);
  }

  /** Every summary, a shard at a time: those in memory, and those on disk read for it. */
  async #scanSummaries(fn: (accountId: string, meta: AccountMeta) => void): Promise<void> {
    const { folder } = this.#summaries;
    const listing = folder === null ? [] : await readdir(folder).catch(() => []);
    await this.#summaries.scan(this.#summaries.stored(listing), (shard) => {
      for (const [accountId, meta] of shard.entries()) fn(accountId, meta);
    });
  }

  /**
   * Counts the accounts and notes their due times: from what a clean close wrote, when it agrees
   * with the account files' count, or else from the summaries, a shard at a time. A change writes
   * several files (the account's, its shards' logs), each atomically but not all at once; a
   * process killed in between leaves some written and some not. An account in the index whose
   * file is missing was being created or deleted then (neither was acknowledged): it does not
   * exist, and is taken out with its keys.
   */
  async #readAtOpen(dir: string): Promise<void> {
    const [names, closed] = await Promise.all([
      readdir(join(dir, 'accounts')).catch(() => [] as string[]),
      takeClosedState(present(this.#folder, 'the index folder')),
    ]);
    // steno's temporary files start with a dot; a clean close leaves none.
    if (
      closed !== null &&
      closed.count === names.filter((name) => !name.startsWith('.') && name.endsWith('.json')).length
    ) {
      this.#count = closed.count;
      for (const [accountId, dueAtMs] of closed.due) this.#due.set(accountId, dueAtMs);
      return;
    }
    const files = new Set(names);
    const forgotten: string[] = [];
    await this.#scanSummaries((accountId, meta) => {
      this.#count++;
      if (!files.has(`${accountId}.json`)) forgotten.push(accountId);
      else if (meta.dueAtMs !== null) this.#due.set(accountId, meta.dueAtMs);
    });
    for (const accountId of forgotten) {
      const lease = await this.leaseRemoval(accountId, []);
      try {
        await this.remove(accountId, []);
      } finally {
        lease.release();
      }
    }
  }

  #summaryShard(accountId: string): Shard<AccountMeta> {
    return present(this.#summaries.resident(this.#summaries.shardOf(accountId)), 'the summaries shard of an account');
  }

  #residentMeta(accountId: string): AccountMeta | undefined {
    return this.#summaryShard(accountId).get(accountId);
  }
}

/** The first `limit` of what it is offered, in `order`: bounded however many are offered. */
class Kept<T> {
  #items: T[] = [];

  constructor(
    private readonly limit: number,
    private readonly order: (a: T, b: T) => number,
  ) {}

  offer(item: T): void {
    this.#items.push(item);
    // Sorted and cut back once twice the limit: amortised, each offer costs a logarithm.
    if (this.#items.length >= Math.max(2 * this.limit, 64)) this.#trim();
  }

  sorted(): T[] {
    this.#trim();
    return this.#items;
  }

  #trim(): void {
    this.#items.sort(this.order);
    this.#items.length = Math.min(this.#items.length, this.limit);
  }
}

function summaryOf(accountId: string, m: AccountMeta): AccountSummary {
  return { accountId, name: m.name, origin: m.origin, createdAt: m.createdAt, lastSeenMs: m.lastSeenMs };
}

function byCreation(a: { createdAt: string; accountId: string }, b: { createdAt: string; accountId: string }): number {
  return a.createdAt === b.createdAt ? a.accountId.localeCompare(b.accountId) : a.createdAt.localeCompare(b.createdAt);
}

/** A cursor of AccountStore.list: `<createdAt>/<accountId>` (an ISO time has no "/"). */
function parseCursor(cursor: string): { createdAt: string; accountId: string } {
  const slash = cursor.indexOf('/');
  return slash === -1
    ? { createdAt: '', accountId: cursor }
    : { createdAt: cursor.slice(0, slash), accountId: cursor.slice(slash + 1) };
}

function isAccountMeta(value: unknown): value is AccountMeta {
  return isObject(value) && Array.isArray(value['entries']);
}
