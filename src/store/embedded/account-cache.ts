import { join } from 'node:path';

import { indexEntriesOf } from '../derived.js';
import { deepFreeze } from '../limits.js';
import type { AccountIndex } from './account-index.js';
import {
  accountFileText,
  emptyDocText,
  loadedAccount,
  nextDeliveryDueMs,
  validateAccountFile,
  type AccountFileData,
  type LoadedAccount,
} from './loaded-account.js';
import type { JournalFileData } from './loaded-account.js';
import { LowdbFile, type FileHolder } from './lowdb-file.js';

export interface AccountCacheOptions {
  /** Folder of the files; null keeps everything in memory (and nothing is ever evicted). */
  dir: string | null;
  /** Accounts kept loaded (file mode); the rest are read from disk when used. */
  cacheSize?: number | undefined;
  /** And at most this many characters of their files (documents, delivery logs and journals). */
  cacheBytes?: number | undefined;
  /** ACCOUNT_WRITE_RATE: characters a second an account's file is written at, at most (0 or absent: no limit). */
  writeRate?: number | undefined;
}

type Loading = { waiters: number; promise: Promise<LoadedAccount | null> };

/**
 * The accounts held in memory: loaded from their files on first use, pinned while an operation
 * uses them, and evicted least recently used first beyond the cache's size in accounts and in
 * bytes, so memory follows the accounts in use, not the accounts stored.
 *
 * Every request pins and unpins an account, so neither may cost more than a few map operations:
 * the bytes held are a running figure (each held file tells its changes of size), and once the
 * cache is over its limits with every account in it pinned or being written, only the account
 * that stops being either is looked at (see `#release`), not the accounts before it.
 */
export class AccountCache {
  readonly #loaded = new Map<string, LoadedAccount>();
  readonly #loading = new Map<string, Loading>();
  /** Characters of the files of the accounts held (documents, delivery logs and journals). */
  #bytes = 0;
  /** Over its limits with no account evictable at the last look: only one that becomes evictable can change that. */
  #blocked = false;

  constructor(
    private readonly index: AccountIndex,
    private readonly options: AccountCacheOptions,
  ) {}

  /** How many accounts are held now. */
  get size(): number {
    return this.#loaded.size;
  }

  /** Characters of the files of the accounts held now. */
  get bytes(): number {
    return this.#bytes;
  }

  has(accountId: string): boolean {
    return this.#loaded.has(accountId);
  }

  /** Where the account's file of `folder` lives; null in memory. */
  path(folder: 'accounts' | 'journals', accountId: string): string | null {
    return this.options.dir === null ? null : join(this.options.dir, folder, `${accountId}.json`);
  }

  /** Every file held (account files and their journals), for flush and close. */
  files(): LowdbFile<unknown>[] {
    const files: LowdbFile<unknown>[] = [];
    for (const loaded of this.#loaded.values()) {
      files.push(loaded.file as LowdbFile<unknown>);
      if (loaded.journal) files.push(loaded.journal as LowdbFile<unknown>);
    }
    return files;
  }

  /**
   * Runs `fn` with the account (null when it does not exist) held in the cache: an account in
   * use is never evicted, since a change made to an evicted copy could be overwritten by a
   * copy loaded again from its file meanwhile, and a lazy write of an evicted copy would be
   * missed by flush and close.
   */
  with<T>(accountId: string, fn: (loaded: LoadedAccount | null) => T | Promise<T>): Promise<T> {
    const cached = this.#loaded.get(accountId);
    if (!cached) return this.#withLoaded(accountId, fn);
    // An account in the cache (the usual case) runs `fn` at once: no turn of the event loop
    // before it, and none after it when it is synchronous.
    this.#pin(accountId, cached);
    let result: T | Promise<T>;
    try {
      result = fn(cached);
    } catch (error) {
      this.#unpin(accountId, cached);
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    if (!(result instanceof Promise)) {
      this.#unpin(accountId, cached);
      return Promise.resolve(result);
    }
    return result.finally(() => this.#unpin(accountId, cached));
  }

  /** Holds a new account, with one pin for its creator (who ends it with `release`). */
  insert(accountId: string, loaded: LoadedAccount): void {
    loaded.file.pace(this.options.writeRate ?? 0);
    this.#hold(accountId, loaded);
  }

  /** Ends the pin `insert` took. */
  release(accountId: string, loaded: LoadedAccount): void {
    this.#unpin(accountId, loaded);
  }

  /** Lets go of a deleted account. */
  forget(accountId: string): void {
    const loaded = this.#loaded.get(accountId);
    if (loaded) this.#drop(accountId, loaded);
  }

  /** The account's journal, `opened` (its file) held with it unless it has one already (the caller holds the account, see with). */
  journalOf(
    accountId: string,
    loaded: LoadedAccount,
    opened: () => LowdbFile<JournalFileData>,
  ): LowdbFile<JournalFileData> {
    if (loaded.journal) return loaded.journal;
    const journal = opened();
    loaded.journal = journal;
    if (this.#loaded.get(accountId) === loaded) {
      this.#bytes += journal.size;
      journal.hold(this.#holderOf(accountId, loaded));
    }
    return journal;
  }

  /**
   * Writes the account's file (within a second when not `durable`) and, when its summary (or given
   * keys) changed, its index summary (the caller holds the account, see with).
   */
  async save(accountId: string, loaded: LoadedAccount, entries?: ReadonlySet<string>, durable = true): Promise<void> {
    const summary = this.index.refresh(accountId, loaded.file.data.doc, nextDeliveryDueMs(loaded), entries);
    await Promise.all([loaded.file.save(durable), summary]);
  }

  /**
   * Drops least recently used accounts beyond the cache's size (in accounts, and in bytes of
   * their files), once nobody uses them and their writes are done. Walks the accounts held (at
   * most about the cache's size) only when it was within its limits at the last look.
   */
  evict(): void {
    if (this.options.dir === null) return;
    this.#blocked = false;
    for (const [accountId, loaded] of this.#loaded) {
      if (!this.#over()) return;
      if (evictable(loaded)) this.#drop(accountId, loaded);
    }
    this.#blocked = this.#over();
  }

  #over(): boolean {
    return (
      this.#loaded.size > (this.options.cacheSize ?? Number.POSITIVE_INFINITY) ||
      this.#bytes > (this.options.cacheBytes ?? Number.POSITIVE_INFINITY)
    );
  }

  /** The account stopped being pinned, or its files' writes are done: it may be evicted now. */
  #release(accountId: string, loaded: LoadedAccount): void {
    if (this.options.dir === null) return;
    if (!this.#over()) {
      this.#blocked = false;
      return;
    }
    if (!this.#blocked) {
      this.evict();
      return;
    }
    // Every other account held was pinned or being written at the last look, and telling so
    // when that ends is what brings each of them here.
    if (this.#loaded.get(accountId) === loaded && evictable(loaded)) this.#drop(accountId, loaded);
    this.#blocked = this.#over();
  }

  /** Holds the account's files, their sizes counted and followed. */
  #hold(accountId: string, loaded: LoadedAccount): void {
    const holder = this.#holderOf(accountId, loaded);
    this.#loaded.set(accountId, loaded);
    this.#bytes += bytesOf(loaded);
    loaded.file.hold(holder);
    loaded.journal?.hold(holder);
  }

  #drop(accountId: string, loaded: LoadedAccount): void {
    this.#loaded.delete(accountId);
    this.#bytes -= bytesOf(loaded);
    loaded.file.hold(null);
    loaded.journal?.hold(null);
  }

  #holderOf(accountId: string, loaded: LoadedAccount): FileHolder {
    return {
      resized: (byChars) => {
        this.#bytes += byChars;
      },
      written: () => this.#release(accountId, loaded),
    };
  }

  async #withLoaded<T>(accountId: string, fn: (loaded: LoadedAccount | null) => T | Promise<T>): Promise<T> {
    const loaded = await this.#acquire(accountId);
    try {
      return await fn(loaded);
    } finally {
      if (loaded) this.#unpin(accountId, loaded);
    }
  }

  /** Takes a pin on a cached account and makes it the most recently used (eviction takes the least recently used first). */
  #pin(accountId: string, loaded: LoadedAccount): void {
    this.#loaded.delete(accountId);
    this.#loaded.set(accountId, loaded);
    loaded.pins++;
  }

  #unpin(accountId: string, loaded: LoadedAccount): void {
    loaded.pins--;
    if (loaded.pins === 0) this.#release(accountId, loaded);
  }

  /**
   * The account, loaded from disk on first use, with a pin taken for the caller (see with);
   * null when it does not exist. The pin is taken synchronously, before any other operation can
   * run an eviction: also for callers that wait for a load under way.
   */
  #acquire(accountId: string): Promise<LoadedAccount | null> {
    const loaded = this.#loaded.get(accountId);
    if (loaded) {
      this.#pin(accountId, loaded);
      return Promise.resolve(loaded);
    }
    const path = this.path('accounts', accountId);
    if (path === null || !this.index.has(accountId)) return Promise.resolve(null);
    let loading = this.#loading.get(accountId);
    if (!loading) {
      loading = this.#load(accountId, path);
      this.#loading.set(accountId, loading);
    }
    loading.waiters++;
    return loading.promise;
  }

  #load(accountId: string, path: string): Loading {
    const started: Loading = { waiters: 0, promise: Promise.resolve(null) };
    const docText = emptyDocText();
    started.promise = LowdbFile.open<AccountFileData>(path, validateAccountFile, accountFileText(docText))
      .then((file) => {
        if (!file) return null;
        file.pace(this.options.writeRate ?? 0);
        deepFreeze(file.data.doc);
        // One pin per caller waiting for this load.
        const account = loadedAccount(
          file,
          docText,
          indexEntriesOf(file.data.doc),
          started.waiters,
          file.data.deliveries,
        );
        this.#hold(accountId, account);
        this.index.restore(accountId, account.entries);
        return account;
      })
      .finally(() => this.#loading.delete(accountId));
    return started;
  }
}

const bytesOf = (loaded: LoadedAccount): number => loaded.file.size + (loaded.journal?.size ?? 0);

const evictable = (loaded: LoadedAccount): boolean =>
  loaded.pins === 0 && !loaded.file.busy && !(loaded.journal?.busy ?? false);
