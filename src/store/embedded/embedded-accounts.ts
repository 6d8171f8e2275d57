import { rm } from 'node:fs/promises';

import type { Clock } from '../../core/clock.js';
import { applyChange } from '../change-draft.js';
import type { AccountDoc, DeliveryRecord } from '../data.js';
import { diffEntries, indexEntriesOf, pastLifetime } from '../derived.js';
import { checkAccountBytes, checkPendingDeliveries, deepFreeze, type AccountLimits } from '../limits.js';
import {
  AccountMissingError,
  AccountsFullError,
  type AccountStore,
  type AccountSummary,
  type AccountTx,
  type IndexKind,
} from '../store.js';
import type { AccountCache } from './account-cache.js';
import type { AccountIndex } from './account-index.js';
import {
  accountFileText,
  addDelivery,
  docBytes,
  emptyDocText,
  loadedAccount,
  type AccountFileData,
  type LoadedAccount,
} from './loaded-account.js';
import { LowdbFile } from './lowdb-file.js';

export interface EmbeddedAccountsOptions {
  clock: Clock;
  /** ACCOUNT_TTL in ms (0: for ever). */
  lifetimeMs: number;
  limits: AccountLimits;
  /** Told of an account being deleted, before it is let go (its deliveries' claims end). */
  onDelete: (loaded: LoadedAccount) => void;
}

/** The accounts of the embedded store: documents in accounts/<id>.json, held by the cache, found by the index. */
export class EmbeddedAccounts implements AccountStore {
  constructor(
    private readonly cache: AccountCache,
    private readonly index: AccountIndex,
    private readonly options: EmbeddedAccountsOptions,
  ) {}

  lookup(kind: IndexKind, key: string): Promise<string | null> {
    return Promise.resolve(this.index.owner(`${kind}:${key}`));
  }

  findByKey(kind: IndexKind, key: string): Promise<{ accountId: string; doc: AccountDoc } | null> {
    const owner = this.index.owner(`${kind}:${key}`);
    if (owner === null) return Promise.resolve(null);
    return this.cache.with(owner, (loaded) =>
      loaded && this.#alive(owner, loaded) ? { accountId: owner, doc: loaded.file.data.doc } : null,
    );
  }

  get(accountId: string): Promise<AccountDoc | null> {
    return this.cache.with(accountId, (loaded) =>
      loaded && this.#alive(accountId, loaded) ? loaded.file.data.doc : null,
    );
  }

  update<T>(accountId: string, change: (doc: AccountDoc, tx: AccountTx) => T): Promise<T> {
    return this.cache.with(accountId, (loaded) => this.#updateLoaded(accountId, loaded, change));
  }

  async create(
    doc: AccountDoc,
    deliveries: readonly DeliveryRecord[] = [],
    options: { maxAccounts?: number } = {},
  ): Promise<boolean> {
    const accountId = doc.account.accountId;
    if (this.index.has(accountId) || this.cache.has(accountId)) return false;
    if (options.maxAccounts !== undefined && this.index.count >= options.maxAccounts)
      throw new AccountsFullError(options.maxAccounts);
    const entries = indexEntriesOf(doc);
    this.index.checkFree(null, entries);
    const docText = emptyDocText();
    const file = LowdbFile.create<AccountFileData>(
      this.cache.path('accounts', accountId),
      { doc: deepFreeze(structuredClone(doc)), deliveries: [] },
      accountFileText(docText),
    );
    const loaded = loadedAccount(file, docText, entries, 1, structuredClone(deliveries));
    this.cache.insert(accountId, loaded);
    this.index.add(doc);
    this.index.setEntries(accountId, entries, []);
    try {
      await this.cache.save(accountId, loaded, entries);
    } finally {
      this.cache.release(accountId, loaded);
    }
    return true;
  }

  delete(accountId: string): Promise<boolean> {
    return this.cache.with(accountId, async (loaded) => {
      if (!loaded && !this.index.has(accountId)) return false;
      const removal = this.index.remove(accountId, loaded?.entries ?? []);
      this.cache.forget(accountId);
      if (loaded) this.options.onDelete(loaded);
      const removals = [this.cache.path('accounts', accountId), this.cache.path('journals', accountId)].flatMap((p) =>
        p === null ? [] : [p],
      );
      await Promise.all([
        removal,
        loaded?.file.remove(),
        loaded?.journal?.remove(),
        ...removals.map((p) => rm(p, { force: true })),
      ]);
      return true;
    });
  }

  list(page: { after?: string; limit: number }): Promise<{ accounts: AccountSummary[]; next: string | null }> {
    return Promise.resolve(this.index.list(page));
  }

  count(): Promise<number> {
    return Promise.resolve(this.index.count);
  }

  touch(accountId: string, atMs: number): Promise<void> {
    this.index.touch(accountId, atMs);
    return Promise.resolve();
  }

  idleSince(beforeMs: number, limit: number): Promise<string[]> {
    return Promise.resolve(this.index.idleSince(beforeMs, limit));
  }

  due(nowMs: number, limit: number): Promise<string[]> {
    const due = this.index.dueAt(nowMs).sort((a, b) => a[1] - b[1]);
    return Promise.resolve(due.slice(0, limit).map(([accountId]) => accountId));
  }

  /** Not past its lifetime; the document says whether it has one, so a fixture account costs one comparison. */
  #alive(accountId: string, loaded: LoadedAccount): boolean {
    const { lifetimeMs, clock } = this.options;
    const { account } = loaded.file.data.doc;
    if (lifetimeMs === 0 || account.origin !== 'generated') return true;
    return !pastLifetime(account, this.index.lastSeenMs(accountId), lifetimeMs, clock.now().getTime());
  }

  async #updateLoaded<T>(
    accountId: string,
    loaded: LoadedAccount | null,
    change: (doc: AccountDoc, tx: AccountTx) => T,
  ): Promise<T> {
    if (!loaded) throw new AccountMissingError(accountId);
    // From here to the writes nothing awaits, so no other change of this account interleaves.
    // A change that throws, or is refused, leaves the stored document as it was.
    const stored = loaded.file.data.doc;
    const { doc, result, added, lazy } = applyChange(stored, change);
    if (doc !== stored) checkAccountBytes(this.options.limits, doc, () => docBytes(loaded));
    checkPendingDeliveries(this.options.limits, loaded.pending.size, added.length);
    const entries = doc === stored ? loaded.entries : indexEntriesOf(doc);
    const { added: newKeys, removed } = diffEntries(loaded.entries, entries);
    this.index.checkFree(accountId, newKeys);
    // Its JSON is written with the file (see accountFileText), once for changes made while a write is on its way.
    loaded.file.data.doc = doc as AccountDoc;
    for (const record of added) addDelivery(loaded, structuredClone(record));
    loaded.entries = entries;
    const keysChanged = newKeys.length > 0 || removed.length > 0;
    if (keysChanged) this.index.setEntries(accountId, newKeys, removed);
    await this.cache.save(accountId, loaded, keysChanged ? entries : undefined, !lazy);
    return result;
  }
}
