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
  /** Accounts kept loaded (file mode) besides those whose writes are on their way; the rest are read from disk when used. */
  cacheSize?: number | undefined;
  /** And at most this many characters of their files (documents, delivery logs and journals). */
  cacheBytes?: number | undefined;
  /** ACCOUNT_WRITE_RATE: characters a second an account's file is written at, at most (0 or absent: no limit). */
  writeRate?: number | undefined;
}

type Loading = { waiters: number; promise: Promise<LoadedAccount | null> };

/**
 * The accounts held in memory: loaded from their files on first use, pinned while an operation
 * uses them, and evicted beyond the cache's size in accounts and in bytes, so memory follows the
 * accounts in use, not the accounts stored.
 *
 * Only an idle account (nobody uses it and its writes are done) can be evicted, and the idle ones
 * are kept apart, in the order they became idle: eviction takes the first of them, and the size
 * in accounts counts them alone. Accounts waiting for a write (a journal's is lazy, up to 5 s)
 * are held whatever their number, as they must be, and do not push out the account just used:
 * when they were counted, a burst of new accounts filled the cache with them and each account
 * was dropped as soon as its own writes ended, to be read back by its next request.
 *
 * Every request pins and unpins an account, so neither may cost more than a few map operations:
 * the bytes held are a running figure (each held file tells its changes of size), and eviction
 * looks at idle accounts only.
 */
export class AccountCache {
  readonly #loaded = new Map<string, LoadedAccount>();
  readonly #loading = new Map<string, Loading>();
  /** The idle accounts, first the one idle longest: what eviction may take. */
  readonly #idle = new Map<string, LoadedAccount>();
  /** Characters of the files of the accounts held (documents, delivery logs and journals). */
  #bytes = 0;

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

  /** Drops the accounts idle longest while the cache is over its size in idle accounts, or in bytes of all its files. */
  evict(): void {
    if (this.options.dir === null) return;
    for (const [accountId, loaded] of this.#idle) {
      if (!this.#over()) return;
      this.#idle.delete(accountId);
      // Idle when it entered; a use since takes it out (#pin), so this holds unless a caller
      // wrote without a pin: then it comes back when that write ends.
      if (evictable(loaded)) this.#drop(accountId, loaded);
    }
  }

  #over(): boolean {
    return (
      this.#idle.size > (this.options.cacheSize ?? Number.POSITIVE_INFINITY) ||
      this.#bytes > (this.options.cacheBytes ?? Number.POSITIVE_INFINITY)
    );
  }

  /** The account stopped being pinned, or its files' writes are done: idle now unless still the other, and evictable. */
  #release(accountId: string, loaded: LoadedAccount): void {
    if (this.options.dir === null) return;
    if (this.#loaded.get(accountId) !== loaded || !evictable(loaded)) return;
    this.#idle.delete(accountId);
    this.#idle.set(accountId, loaded);
    if (this.#over()) this.evict();
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
    this.#idle.delete(accountId);
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

  /** Takes a pin on a cached account: in use, it is not idle (it becomes idle again, the newest, when let go). */
  #pin(accountId: string, loaded: LoadedAccount): void {
    loaded.pins++;
    this.#idle.delete(accountId);
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
