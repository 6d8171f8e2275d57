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
import type { Lease } from './paged-shards.js';

/** How often create and delete lease again when keys changed while their shards were read (then create reads every shard). */
const INDEX_READ_ATTEMPTS = 5;

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
    return this.index.ownerOf(`${kind}:${key}`);
  }

  findByKey(kind: IndexKind, key: string): Promise<{ accountId: string; doc: AccountDoc } | null> {
    const entry = `${kind}:${key}`;
    // The key's shard is in memory for an account in use: no read, no turn of the event loop.
    const owner = this.index.ownerNow(entry);
    if (owner === undefined) return this.index.ownerOf(entry).then((found) => this.#withDoc(found));
    return this.#withDoc(owner);
  }

  #withDoc(owner: string | null): Promise<{ accountId: string; doc: AccountDoc } | null> {
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
    const entries = indexEntriesOf(doc);
    let lease = await this.index.lease(accountId, { added: entries });
    try {
      // A key written meanwhile may have made a filter doubt a new key: its shard is read then.
      for (let attempt = 1; !this.index.inMemory(accountId, { added: entries }); attempt++) {
        lease.release();
        lease = await this.index.lease(
          accountId,
          attempt < INDEX_READ_ATTEMPTS ? { added: entries } : { read: entries },
        );
      }
      // From here to the writes nothing awaits: a create of the same account or keys waits for its lease, then finds them taken.
      if (this.index.has(accountId) || this.cache.has(accountId)) return false;
      if (options.maxAccounts !== undefined && this.index.count >= options.maxAccounts)
        throw new AccountsFullError(options.maxAccounts);
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
      const keys = this.index.setEntries(accountId, entries, []);
      try {
        await Promise.all([this.cache.save(accountId, loaded, entries), keys]);
      } finally {
        this.cache.release(accountId, loaded);
      }
      return true;
    } finally {
      lease.release();
    }
  }

  delete(accountId: string): Promise<boolean> {
    return this.cache.with(accountId, async (loaded) => {
      const given = loaded?.entries ?? [];
      let lease = await this.index.leaseRemoval(accountId, given);
      try {
        // Its keys may have changed while their shards were read: read those too.
        for (let attempt = 1; !this.index.removable(accountId, given) && attempt < INDEX_READ_ATTEMPTS; attempt++) {
          lease.release();
          lease = await this.index.leaseRemoval(accountId, given);
        }
        if (!loaded && !this.index.has(accountId)) return false;
        const removal = this.index.remove(accountId, given);
        this.cache.forget(accountId);
        if (loaded) this.options.onDelete(loaded);
        const removals = [this.cache.path('accounts', accountId), this.cache.path('journals', accountId)].flatMap(
          (p) => (p === null ? [] : [p]),
        );
        await Promise.all([
          removal,
          loaded?.file.remove(),
          loaded?.journal?.remove(),
          ...removals.map((p) => rm(p, { force: true })),
        ]);
        return true;
      } finally {
        lease.release();
      }
    });
  }

  list(page: { after?: string; limit: number }): Promise<{ accounts: AccountSummary[]; next: string | null }> {
    return this.index.list(page);
  }

  count(): Promise<number> {
    return Promise.resolve(this.index.count);
  }

  touch(accountId: string, atMs: number): Promise<void> {
    return this.index.touch(accountId, atMs);
  }

  idleSince(beforeMs: number, limit: number): Promise<string[]> {
    return this.index.idleSince(beforeMs, limit);
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
    let lease: Lease | null = null;
    try {
      for (;;) {
        // From here to the writes nothing awaits but the read of the index shards of new keys, after
        // which the change is made again if the account changed meanwhile: no other change of this
        // account interleaves. A change that throws, or is refused, leaves the stored document as it was.
        const stored = loaded.file.data.doc;
        const { doc, result, added, lazy } = applyChange(stored, change);
        const entries = doc === stored ? loaded.entries : indexEntriesOf(doc);
        const { added: newKeys, removed } = diffEntries(loaded.entries, entries);
        const keysChanged = newKeys.length > 0 || removed.length > 0;
        const keys = { added: newKeys, removed };
        if (keysChanged && !this.index.inMemory(accountId, keys)) {
          lease?.release();
          lease = await this.index.lease(accountId, keys);
          // Each turn here waited for another change of the account: the changes of others go on.
          if (loaded.file.data.doc !== stored) continue;
          if (!this.index.inMemory(accountId, keys)) {
            // A key written meanwhile made a filter doubt a new key: every shard is read.
            lease.release();
            lease = await this.index.lease(accountId, { read: [...newKeys, ...removed] });
            if (loaded.file.data.doc !== stored) continue;
          }
        }
        if (doc !== stored) checkAccountBytes(this.options.limits, doc, () => docBytes(loaded));
        checkPendingDeliveries(this.options.limits, loaded.pending.size, added.length);
        this.index.checkFree(accountId, newKeys);
        // Its JSON is written with the file (see accountFileText), once for changes made while a write is on its way.
        loaded.file.data.doc = doc as AccountDoc;
        for (const record of added) addDelivery(loaded, structuredClone(record));
        loaded.entries = entries;
        const keyWrites = keysChanged ? this.index.setEntries(accountId, newKeys, removed) : null;
        await Promise.all([this.cache.save(accountId, loaded, keysChanged ? entries : undefined, !lazy), keyWrites]);
        return result;
      }
    } finally {
      lease?.release();
    }
  }
}
