import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

import { present } from '../../core/errors.js';
import { hash32 } from '../../core/random.js';
import type { AccountDoc, DeepReadonly } from '../data.js';
import { earliest, nextRunDueMs, processDueMs, splitIndexEntry } from '../derived.js';
import { IndexConflictError, type AccountSummary } from '../store.js';
import { isObject } from './loaded-account.js';
import { LowdbFile, StoreFileError } from './lowdb-file.js';

const SHARDS = 256;

/**
 * How soon last-request times reach the disk: they only decide when an idle account expires,
 * days later. Written sooner, a hosted sandbox's active accounts would rewrite their shards every second.
 */
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

type Shard = LowdbFile<ShardDocument>;

/**
 * The index: index/<00-ff>.json, in 256 shards by hash of the account, each account's summary
 * and keys. It is held in memory whole (a few dozen bytes per key), so every look-up is a map
 * access; a change of an account writes its own shard only.
 */
export class AccountIndex {
  /** Every index key, and the account it resolves to: built from the shards at start-up. */
  readonly #owners = new Map<string, string>();
  /** Accounts with work scheduled, and when it falls due on the process clock. */
  readonly #due = new Map<string, number>();
  #count = 0;

  private constructor(readonly shards: readonly Shard[]) {
    for (const shard of shards) {
      for (const [accountId, meta] of Object.entries(shard.data.accounts)) {
        this.#count++;
        if (meta.dueAtMs !== null) this.#due.set(accountId, meta.dueAtMs);
        for (const entry of meta.entries) this.#owners.set(entry, accountId);
      }
    }
  }

  /** The shards of `dir` (all empty when it is fresh, or null: memory). */
  static async open(dir: string | null, fresh: boolean): Promise<AccountIndex> {
    const shards: Shard[] = [];
    const existing =
      fresh || dir === null ? new Set<string>() : new Set(await readdir(join(dir, 'index')).catch(() => []));
    for (let i = 0; i < SHARDS; i++) {
      const name = `${i.toString(16).padStart(2, '0')}.json`;
      const file =
        existing.has(name) && dir !== null ? await LowdbFile.open(join(dir, 'index', name), validateShard) : null;
      shards.push(
        file ?? LowdbFile.create<ShardDocument>(dir === null ? null : join(dir, 'index', name), { accounts: {} }),
      );
    }
    if (!fresh && dir !== null) await forgetAccountsWithoutFile(dir, shards);
    return new AccountIndex(shards);
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

  /** Records the account's last request; its shard reaches the disk lazily. */
  touch(accountId: string, atMs: number): void {
    const located = this.#meta(accountId);
    if (!located) return;
    located.meta.lastSeenMs = atMs;
    void located.shard.save(false, LAST_SEEN_FLUSH_MS);
  }

  /** Enters a new account with no keys yet (its shard is written with its summary, see refresh). */
  add(doc: DeepReadonly<AccountDoc>): void {
    const { accountId, name, origin, createdAt } = doc.account;
    const shard = this.#shardOf(accountId);
    shard.data.accounts[accountId] = { name, origin, createdAt, lastSeenMs: null, dueAtMs: null, entries: [] };
    this.#count++;
  }

  /** Takes the account and `entries` (with the keys the index holds for it) out; returns its shard when it was in it. */
  remove(accountId: string, entries: Iterable<string>): Shard | null {
    const located = this.#meta(accountId);
    this.setEntries(accountId, [], [...entries, ...(located?.meta.entries ?? [])]);
    this.#due.delete(accountId);
    if (!located) return null;
    const { [accountId]: _removed, ...kept } = located.shard.data.accounts;
    located.shard.data.accounts = kept;
    this.#count--;
    return located.shard;
  }

  /**
   * Recomputes the account's due time (from its scenario runs and `deliveryDueMs`), name and,
   * when given, keys; returns the shard when they changed, to be written with the account's file.
   */
  refresh(
    accountId: string,
    doc: DeepReadonly<AccountDoc>,
    deliveryDueMs: number | null,
    entries?: ReadonlySet<string>,
  ): Shard | null {
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
    return located.shard;
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
    void located.shard.save().catch(() => undefined);
  }

  /** Accounts whose work is due at `nowMs` on the process clock, with when, unordered. */
  dueAt(nowMs: number): [string, number][] {
    return [...this.#due.entries()].filter(([, at]) => at <= nowMs);
  }

  /** Accounts in creation order, `limit` at a time, after the cursor of the previous page. */
  list(page: { after?: string; limit: number }): { accounts: AccountSummary[]; next: string | null } {
    const all = this.#summaries().sort(byCreation);
    // The cursor is the last account's place in the order, not only its id: the account may be
    // deleted before the next page is asked for (idle expiry), and the next page still starts after it.
    const after = page.after === undefined ? null : parseCursor(page.after);
    const found = after === null ? 0 : all.findIndex((a) => byCreation(a, after) > 0);
    const start = found === -1 ? all.length : found;
    const accounts = all.slice(start, start + page.limit);
    const last = accounts.at(-1);
    return { accounts, next: start + page.limit < all.length && last ? `${last.createdAt}/${last.accountId}` : null };
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
    return present(this.shards[hash32(accountId) % SHARDS], 'the index shard of an account');
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

/**
 * A change writes several files (the account's, index shards), each atomically but not all at
 * once; a process killed in between leaves some written and some not. An account in the index
 * whose file is missing was being created or deleted then (neither was acknowledged): it does
 * not exist. Costs one directory listing at open, no file read.
 */
async function forgetAccountsWithoutFile(dir: string, shards: readonly Shard[]): Promise<void> {
  const files = new Set(await readdir(join(dir, 'accounts')).catch(() => []));
  for (const shard of shards) {
    const entries = Object.entries(shard.data.accounts);
    const kept = entries.filter(([accountId]) => files.has(`${accountId}.json`));
    if (kept.length === entries.length) continue;
    shard.data.accounts = Object.fromEntries(kept);
    await shard.save();
  }
}

function validateShard(parsed: unknown): ShardDocument {
  if (!isObject(parsed) || !isObject(parsed['accounts']))
    throw new StoreFileError('an index shard of DATA_DIR is not valid');
  return parsed as unknown as ShardDocument;
}
