import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

import { present } from '../../core/errors.js';
import { hash32 } from '../../core/random.js';
import type { AccountDoc, DeepReadonly } from '../data.js';
import { earliest, nextRunDueMs, processDueMs, splitIndexEntry } from '../derived.js';
import { IndexConflictError, type AccountSummary } from '../store.js';
import { isObject } from './loaded-account.js';
import { LowdbFile, StoreFileError } from './lowdb-file.js';
import { ShardLog } from './shard-log.js';

const SHARDS = 256;

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

type Shard = LowdbFile<ShardDocument>;

/**
 * The index: index/<00-ff>.json, in 256 shards by hash of the account, each account's summary
 * and keys. It is held in memory whole (about a kilobyte an account of three keys: see
 * docs/benchmarks.md), so every look-up is a map access; a change of an account appends its
 * summary to its shard's log (index/<00-ff>.log, see shard-log.ts), so what it writes does not
 * grow with the accounts stored. Last-request times reach the shard's file within a minute
 * (LAZY_FOLD_MS): they only decide when an idle account expires, days later.
 */
export class AccountIndex {
  /** Every index key, and the account it resolves to: built from the shards at start-up. */
  readonly #owners = new Map<string, string>();
  /** Accounts with work scheduled, and when it falls due on the process clock. */
  readonly #due = new Map<string, number>();
  #count = 0;
  /** Accounts in each shard. */
  readonly #inShard: number[];
  readonly #logs: ShardLog<AccountMeta>[];

  private constructor(
    readonly shards: readonly Shard[],
    dir: string | null,
    logLines: readonly number[],
  ) {
    this.#inShard = shards.map(() => 0);
    for (const [i, shard] of shards.entries()) {
      for (const [accountId, meta] of Object.entries(shard.data.accounts)) {
        this.#count++;
        this.#inShard[i] = (this.#inShard[i] ?? 0) + 1;
        if (meta.dueAtMs !== null) this.#due.set(accountId, meta.dueAtMs);
        for (const entry of meta.entries) this.#owners.set(entry, accountId);
      }
    }
    this.#logs = shards.map(
      (shard, i) =>
        new ShardLog<AccountMeta>(
          dir === null ? null : join(dir, 'index', `${shardName(i)}.log`),
          shard as LowdbFile<unknown>,
          () => this.#inShard[i] ?? 0,
          logLines[i] ?? 0,
        ),
    );
  }

  /** The shards of `dir`, their logs read over them (all empty when it is fresh, or null: memory). */
  static async open(dir: string | null, fresh: boolean): Promise<AccountIndex> {
    const existing =
      fresh || dir === null ? new Set<string>() : new Set(await readdir(join(dir, 'index')).catch(() => []));
    const logLines: number[] = [];
    // Read side by side: start-up with many accounts waits for the disk once, not 256 times.
    const shards = await Promise.all(
      Array.from({ length: SHARDS }, async (_, i): Promise<Shard> => {
        const name = shardName(i);
        const path = dir === null ? null : join(dir, 'index', `${name}.json`);
        const opened = existing.has(`${name}.json`) && path !== null ? await LowdbFile.open(path, validateShard) : null;
        const shard = opened ?? LowdbFile.create<ShardDocument>(path, { accounts: {} });
        if (dir !== null && existing.has(`${name}.log`)) {
          const log = await ShardLog.read<AccountMeta>(join(dir, 'index', `${name}.log`));
          for (const [accountId, meta] of log.lines) {
            if (meta === null) Reflect.deleteProperty(shard.data.accounts, accountId);
            else if (isObject(meta) && Array.isArray(meta.entries)) shard.data.accounts[accountId] = meta;
          }
          logLines[i] = log.count;
        }
        return shard;
      }),
    );
    const index = new AccountIndex(shards, dir, logLines);
    if (!fresh && dir !== null) await index.#forgetAccountsWithoutFile(dir);
    return index;
  }

  /** Writes what waits: the logs' appends, and the last-request times not yet in the shards' files. */
  async flush(): Promise<void> {
    await Promise.all(this.#logs.map((log) => log.flush()));
  }

  /** Folds every log into its shard's file (at close: the next start reads the files alone). */
  async fold(): Promise<void> {
    await Promise.all(this.#logs.map((log) => log.fold()));
  }

  get count(): number {
    return this.#count;
  }

  /** The account owning the key, or null. */
  owner(entry: string): string | null {
    return this.#owners.get(entry) ?? null;
  }

  /** Throws IndexConflictError for the first of `entries` another account owns. */
  checkFree(accountId: string | null, entries: Iterable<string>): void {
    for (const entry of entries) {
      const owner = this.owner(entry);
      if (owner !== null && owner !== accountId) {
        const { kind, key } = splitIndexEntry(entry);
        throw new IndexConflictError(kind, key);
      }
    }
  }

  /** Adds and removes index keys of the account in memory; its shard is written with its summary. */
  setEntries(accountId: string, added: Iterable<string>, removed: Iterable<string>): void {
    for (const entry of removed) if (this.#owners.get(entry) === accountId) this.#owners.delete(entry);
    for (const entry of added) this.#owners.set(entry, accountId);
  }

  has(accountId: string): boolean {
    return this.#meta(accountId) !== null;
  }

  lastSeenMs(accountId: string): number | null {
    return this.#meta(accountId)?.meta.lastSeenMs ?? null;
  }

  /** Records the account's last request; its shard's file takes it in within a minute. */
  touch(accountId: string, atMs: number): void {
    const located = this.#meta(accountId);
    if (!located) return;
    located.meta.lastSeenMs = atMs;
    this.#logOf(accountId).foldLazily();
  }

  /** Enters a new account with no keys yet (its summary is logged with its keys, see refresh). */
  add(doc: DeepReadonly<AccountDoc>): void {
    const { accountId, name, origin, createdAt } = doc.account;
    const i = shardNumber(accountId);
    const shard = present(this.shards[i], 'the index shard of an account');
    shard.data.accounts[accountId] = { name, origin, createdAt, lastSeenMs: null, dueAtMs: null, entries: [] };
    if (this.#order) {
      // Before the first account created after it: usually the end.
      const at = this.#firstAfter(this.#order, { createdAt, accountId });
      this.#order.splice(at, 0, accountId);
    }
    this.#count++;
    this.#inShard[i] = (this.#inShard[i] ?? 0) + 1;
  }

  /** Takes the account and `entries` (with the keys the index holds for it) out; the write of its removal when it was in it. */
  remove(accountId: string, entries: Iterable<string>): Promise<void> | null {
    const located = this.#meta(accountId);
    this.setEntries(accountId, [], [...entries, ...(located?.meta.entries ?? [])]);
    this.#due.delete(accountId);
    if (!located) return null;
    if (this.#order) {
      const at = this.#firstAfter(this.#order, { createdAt: located.meta.createdAt, accountId }) - 1;
      if (this.#order[at] === accountId) this.#order.splice(at, 1);
    }
    Reflect.deleteProperty(located.shard.data.accounts, accountId);
    this.#count--;
    this.#inShard[shardNumber(accountId)] = (this.#inShard[shardNumber(accountId)] ?? 1) - 1;
    return this.#logOf(accountId).append(accountId, null);
  }

  /**
   * Recomputes the account's due time (from its scenario runs and `deliveryDueMs`), name and,
   * when given, keys; when they changed, the write of its summary, to be awaited with the account's file.
   */
  refresh(
    accountId: string,
    doc: DeepReadonly<AccountDoc>,
    deliveryDueMs: number | null,
    entries?: ReadonlySet<string>,
  ): Promise<void> | null {
    const located = this.#meta(accountId);
    if (!located) return null;
    const dueAtMs = processDueMs(earliest(nextRunDueMs(doc), deliveryDueMs), doc.clock);
    if (dueAtMs === null) this.#due.delete(accountId);
    else this.#due.set(accountId, dueAtMs);
    const { meta } = located;
    if (meta.dueAtMs === dueAtMs && meta.name === doc.account.name && !entries) return null;
    meta.dueAtMs = dueAtMs;
    meta.name = doc.account.name;
    if (entries) meta.entries = [...entries];
    return this.#logOf(accountId).append(accountId, meta);
  }

  /**
   * Puts back keys of the account's document that the index lacks: a process killed after
   * writing the account's file but before the index shards of its change (see
   * forgetAccountsWithoutFile) leaves keys that would otherwise never resolve. A key another
   * account took meanwhile stays with it.
   */
  restore(accountId: string, entries: ReadonlySet<string>): void {
    const missing = [...entries].filter((entry) => this.owner(entry) === null);
    if (missing.length === 0) return;
    this.setEntries(accountId, missing, []);
    const located = this.#meta(accountId);
    if (!located) return;
    located.meta.entries = [...new Set([...located.meta.entries, ...missing])];
    void this.#logOf(accountId)
      .append(accountId, located.meta)
      .catch(() => undefined);
  }

  /** Accounts whose work is due at `nowMs` on the process clock, with when, unordered. */
  dueAt(nowMs: number): [string, number][] {
    return [...this.#due.entries()].filter(([, at]) => at <= nowMs);
  }

  /**
   * Accounts in creation order, `limit` at a time, after the cursor of the previous page: a
   * binary search of the order (made at the first page asked for, then kept), so a page costs
   * the same at any number of accounts.
   */
  list(page: { after?: string; limit: number }): { accounts: AccountSummary[]; next: string | null } {
    const order = this.#creationOrder();
    // The cursor is the last account's place in the order, not only its id: the account may be
    // deleted before the next page is asked for (idle expiry), and the next page still starts after it.
    const start = page.after === undefined ? 0 : this.#firstAfter(order, parseCursor(page.after));
    const accounts = order.slice(start, start + page.limit).map((accountId) => this.#summary(accountId));
    const last = accounts.at(-1);
    return {
      accounts,
      next: start + page.limit < order.length && last ? `${last.createdAt}/${last.accountId}` : null,
    };
  }

  /** Generated accounts whose last request (or creation) came before `beforeMs`, the longest idle first. */
  idleSince(beforeMs: number, limit: number): string[] {
    const idle: { accountId: string; lastMs: number }[] = [];
    for (const { accountId, origin, createdAt, lastSeenMs } of this.#summaries()) {
      if (origin !== 'generated') continue;
      const lastMs = lastSeenMs ?? Date.parse(createdAt);
      if (lastMs < beforeMs) idle.push({ accountId, lastMs });
    }
    return idle
      .sort((a, b) => a.lastMs - b.lastMs)
      .slice(0, limit)
      .map((a) => a.accountId);
  }

  /** Account ids in creation order (see byCreation); made once, then kept as accounts come and go. */
  #order: string[] | null = null;

  #creationOrder(): string[] {
    if (this.#order === null) {
      const all = this.#summaries().sort(byCreation);
      this.#order = all.map((a) => a.accountId);
    }
    return this.#order;
  }

  /** The place in `order` of the first account after `place` (order.length when none). */
  #firstAfter(order: readonly string[], place: { createdAt: string; accountId: string }): number {
    let low = 0;
    let high = order.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (byCreation(this.#summary(order[middle] ?? ''), place) > 0) high = middle;
      else low = middle + 1;
    }
    return low;
  }

  #summary(accountId: string): AccountSummary {
    const m = present(this.#meta(accountId), 'the summary of an account in the order').meta;
    return { accountId, name: m.name, origin: m.origin, createdAt: m.createdAt, lastSeenMs: m.lastSeenMs };
  }

  #summaries(): AccountSummary[] {
    const all: AccountSummary[] = [];
    for (const shard of this.shards) {
      for (const [accountId, m] of Object.entries(shard.data.accounts)) {
        all.push({ accountId, name: m.name, origin: m.origin, createdAt: m.createdAt, lastSeenMs: m.lastSeenMs });
      }
    }
    return all;
  }

  #shardOf(accountId: string): Shard {
    return present(this.shards[shardNumber(accountId)], 'the index shard of an account');
  }

  #logOf(accountId: string): ShardLog<AccountMeta> {
    return present(this.#logs[shardNumber(accountId)], 'the log of an index shard');
  }

  /**
   * A change writes several files (the account's, the index shard's log), each atomically but
   * not all at once; a process killed in between leaves some written and some not. An account
   * in the index whose file is missing was being created or deleted then (neither was
   * acknowledged): it does not exist. Costs one directory listing at open, no file read.
   */
  async #forgetAccountsWithoutFile(dir: string): Promise<void> {
    const files = new Set(await readdir(join(dir, 'accounts')).catch(() => []));
    for (const [i, shard] of this.shards.entries()) {
      let forgotten = false;
      for (const accountId of Object.keys(shard.data.accounts)) {
        if (files.has(`${accountId}.json`)) continue;
        this.remove(accountId, [])?.catch(() => undefined);
        forgotten = true;
      }
      if (forgotten) await present(this.#logs[i], 'the log of an index shard').fold();
    }
  }

  #meta(accountId: string): { shard: Shard; meta: AccountMeta } | null {
    const shard = this.#shardOf(accountId);
    const meta = shard.data.accounts[accountId];
    return meta ? { shard, meta } : null;
  }
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

const shardName = (i: number): string => i.toString(16).padStart(2, '0');

const shardNumber = (accountId: string): number => hash32(accountId) % SHARDS;

function validateShard(parsed: unknown): ShardDocument {
  if (!isObject(parsed) || !isObject(parsed['accounts']))
    throw new StoreFileError('an index shard of DATA_DIR is not valid');
  return parsed as unknown as ShardDocument;
}
