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
import { LowdbFile } from './lowdb-file.js';

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
 */
export class AccountCache {
  readonly #loaded = new Map<string, LoadedAccount>();
  readonly #loading = new Map<string, Loading>();

  constructor(
    private readonly index: AccountIndex,
    private readonly options: AccountCacheOptions,
  ) {}

  /** How many accounts are held now. */
  get size(): number {
    return this.#loaded.size;
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
      this.#unpin(cached);
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    if (!(result instanceof Promise)) {
      this.#unpin(cached);
      return Promise.resolve(result);
    }
    return result.finally(() => this.#unpin(cached));
  }

  /** Holds a new account, with one pin for its creator (who ends it with `release`). */
  insert(accountId: string, loaded: LoadedAccount): void {
    loaded.file.pace(this.options.writeRate ?? 0);
    this.#loaded.set(accountId, loaded);
  }

  /** Ends the pin `insert` took. */
  release(loaded: LoadedAccount): void {
    this.#unpin(loaded);
  }

  /** Lets go of a deleted account. */
  forget(accountId: string): void {
    this.#loaded.delete(accountId);
  }

  /**
   * Writes the account's file (within a second when not `durable`) and, when its summary (or given
   * keys) changed, its index shard (the caller holds the account, see with).
   */
  async save(accountId: string, loaded: LoadedAccount, entries?: ReadonlySet<string>, durable = true): Promise<void> {
    const shard = this.index.refresh(accountId, loaded.file.data.doc, nextDeliveryDueMs(loaded), entries);
    await Promise.all([loaded.file.save(durable), shard?.save()]);
  }

  /** Called when a file's writes are all done (open the files of held accounts with it): an account that waited for them may now be evicted. */
  readonly onWritten = (): void => this.evict();

  /**
   * Drops least recently used accounts beyond the cache's size (in accounts, and in bytes of
   * their files), once nobody uses them and their writes are done.
   */
  evict(): void {
    const limit = this.options.cacheSize ?? Number.POSITIVE_INFINITY;
    const byteLimit = this.options.cacheBytes ?? Number.POSITIVE_INFINITY;
    if (this.options.dir === null) return;
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
    this.evict();
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
    started.promise = LowdbFile.open<AccountFileData>(
      path,
      validateAccountFile,
      this.onWritten,
      accountFileText(docText),
    )
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
        this.#loaded.set(accountId, account);
        this.index.restore(accountId, account.entries);
        return account;
      })
      .finally(() => this.#loading.delete(accountId));
    return started;
  }
}
