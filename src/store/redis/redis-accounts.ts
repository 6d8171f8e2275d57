import type { Clock } from '../../core/clock.js';
import { present } from '../../core/errors.js';
import { applyChange } from '../change-draft.js';
import type { AccountDoc, DeepReadonly, DeliveryRecord } from '../data.js';
import { diffEntries, indexEntriesOf, pastLifetime } from '../derived.js';
import { jsonBytes } from '../json-size.js';
import {
  checkAccountBytes,
  checkPendingDeliveries,
  deepFreeze,
  NO_ACCOUNT_LIMITS,
  storedBytes,
  type AccountLimits,
} from '../limits.js';
import {
  AccountMissingError,
  AccountsFullError,
  IndexConflictError,
  type AccountStore,
  type AccountSummary,
  type AccountTx,
  type IndexKind,
} from '../store.js';
import { asArray, asText, docFields, encodeDelivery, pairsOf } from './codec.js';
import type { RedisConnection } from './connection.js';
import { CREATE_ACCOUNT, DELETE_ACCOUNT, LIST_ACCOUNTS, OWNER_VERSION, TOUCH_ACCOUNT, UPDATE_ACCOUNT } from './lua.js';
import { pendingCount } from './redis-deliveries.js';
import { Serially } from './serially.js';

interface Cached {
  version: string;
  /** Frozen: handed out without a copy. */
  doc: DeepReadonly<AccountDoc>;
  entries: Set<string>;
  /** Its stored size (ACCOUNT_STORAGE_LIMIT). */
  bytes: number;
}

/** After this many lost compare-and-sets in a row, a change waits a little before its next try. */
const RETRIES_BEFORE_BACKOFF = 5;

/**
 * Accounts in Redis: one hash per account (`acct:<id>`: the document as JSON, its version, and
 * the fields the scripts need without decoding it), one hash per index kind (`idx:<kind>`),
 * `accounts` (creation order), `idle` (generated accounts by last request) and `due` (accounts
 * by when their next work falls due). Documents read are kept, by version, in a bounded cache:
 * a read asks Redis for the version and gets the document only when it changed, so a large
 * account (a thousand subscriptions) is not sent and parsed again on every request.
 */
export class RedisAccounts implements AccountStore {
  readonly #cache = new Map<string, Cached>();
  /** The stored size of the documents in #cache. */
  #cachedBytes = 0;
  readonly #serially = new Serially();

  constructor(
    private readonly connection: RedisConnection,
    private readonly prefix: string,
    private readonly cacheSize: number,
    private readonly lifetime: { clock: Clock; lifetimeMs: number },
    private readonly limits: AccountLimits = NO_ACCOUNT_LIMITS,
    /** Bytes of documents the cache holds at most, besides their number. */
    private readonly cacheBytes = Number.POSITIVE_INFINITY,
  ) {}

  lookup(kind: IndexKind, key: string): Promise<string | null> {
    return this.connection
      .run((c) => c.hGet(`${this.prefix}idx:${kind}`, key))
      .then((owner: unknown) => (owner === null || owner === undefined ? null : asText(owner)));
  }

  async findByKey(kind: IndexKind, key: string): Promise<{ accountId: string; doc: DeepReadonly<AccountDoc> } | null> {
    const reply = await this.connection.script(OWNER_VERSION, [this.prefix, kind, key]);
    if (reply === null || reply === undefined) return null;
    const [owner, version, lastSeen] = asArray(reply).map(asText);
    const accountId = present(owner, 'the owner in an index reply');
    let found = this.#cache.get(accountId);
    if (found !== undefined && found.version === version) this.#remember(accountId, found);
    else found = (await this.#load(accountId))?.entry;
    return found && this.#alive(found.doc, lastSeen) ? { accountId, doc: found.doc } : null;
  }

  async get(accountId: string): Promise<DeepReadonly<AccountDoc> | null> {
    const read = await this.#read(accountId);
    return read && this.#alive(read.entry.doc, read.lastSeen) ? read.entry.doc : null;
  }

  /** Not past its lifetime, by the request time stored with it ('' when none). */
  #alive(doc: DeepReadonly<AccountDoc>, lastSeen: string | undefined): boolean {
    const { clock, lifetimeMs } = this.lifetime;
    if (lifetimeMs === 0 || doc.account.origin !== 'generated') return true;
    return !pastLifetime(doc.account, lastSeen ? Number(lastSeen) : null, lifetimeMs, clock.now().getTime());
  }

  update<T>(accountId: string, change: (doc: AccountDoc, tx: AccountTx) => T): Promise<T> {
    return this.#serially.run(accountId, async () => {
      let current = (await this.#read(accountId))?.entry;
      for (let attempt = 1; ; attempt++) {
        if (!current) throw new AccountMissingError(accountId);
        // A change that throws, or is refused, leaves the cached document as it was.
        const { doc, result, added } = applyChange(current.doc, change);
        const before = current;
        if (doc !== before.doc) checkAccountBytes(this.limits, doc, () => before.bytes);
        // Counted before the script: replicas adding at the same instant may pass the bound by their own additions, no more.
        if (added.length > 0 && this.limits.pendingDeliveries > 0)
          checkPendingDeliveries(
            this.limits,
            await pendingCount(this.connection, this.prefix, accountId),
            added.length,
          );
        const entries = doc === before.doc ? before.entries : indexEntriesOf(doc);
        const diff = diffEntries(current.entries, entries);
        const keysChanged = diff.added.length > 0 || diff.removed.length > 0;
        const reply = asArray(
          await this.connection.script(UPDATE_ACCOUNT, [
            this.prefix,
            accountId,
            current.version,
            JSON.stringify(doc),
            JSON.stringify({
              ...docFields(doc),
              entriesJson: keysChanged ? JSON.stringify(pairsOf(entries)) : '',
              added: pairsOf(diff.added),
              removed: pairsOf(diff.removed),
              deliveries: added.map((record) => encodeDelivery(record)),
            }),
          ]),
        );
        const outcome = asText(reply[0]);
        if (outcome === 'ok') {
          const bytes = doc === before.doc ? before.bytes : jsonBytes(doc);
          this.#remember(accountId, { version: asText(reply[1]), doc, entries, bytes });
          return result;
        }
        this.#forget(accountId);
        if (outcome === 'missing') throw new AccountMissingError(accountId);
        if (outcome === 'conflict') throw new IndexConflictError(asText(reply[1]) as IndexKind, asText(reply[2]));
        // 'stale': another replica changed the account since it was read; redo the change on the
        // document that came back with the answer (no second read).
        const stored = asText(reply[2]);
        const fresh = deepFreeze(JSON.parse(stored) as AccountDoc);
        current = { version: asText(reply[1]), doc: fresh, entries: indexEntriesOf(fresh), bytes: storedBytes(stored) };
        this.#remember(accountId, current);
        if (attempt >= RETRIES_BEFORE_BACKOFF)
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 * attempt));
      }
    });
  }

  async create(
    doc: AccountDoc,
    deliveries: readonly DeliveryRecord[] = [],
    options: { maxAccounts?: number } = {},
  ): Promise<boolean> {
    const accountId = doc.account.accountId;
    const entries = indexEntriesOf(doc);
    const reply = asArray(
      await this.connection.script(CREATE_ACCOUNT, [
        this.prefix,
        accountId,
        JSON.stringify(doc),
        JSON.stringify({
          ...docFields(doc),
          origin: doc.account.origin,
          createdAt: doc.account.createdAt,
          createdAtMs: String(Date.parse(doc.account.createdAt) || 0),
          entries: pairsOf(entries),
          entriesJson: JSON.stringify(pairsOf(entries)),
          deliveries: deliveries.map((record) => encodeDelivery(record)),
        }),
        options.maxAccounts === undefined ? '' : String(options.maxAccounts),
      ]),
    );
    const outcome = asText(reply[0]);
    if (outcome === 'full') throw new AccountsFullError(options.maxAccounts ?? 0);
    if (outcome === 'conflict') throw new IndexConflictError(asText(reply[1]) as IndexKind, asText(reply[2]));
    this.#forget(accountId);
    return outcome === 'ok';
  }

  async delete(accountId: string): Promise<boolean> {
    const deleted = await this.connection.script(DELETE_ACCOUNT, [this.prefix, accountId]);
    this.#forget(accountId);
    return deleted === 1;
  }

  async list(page: { after?: string; limit: number }): Promise<{ accounts: AccountSummary[]; next: string | null }> {
    const reply = asArray(
      await this.connection.script(LIST_ACCOUNTS, [this.prefix, page.after ?? '', String(Math.max(0, page.limit))]),
    );
    const rows = asArray(reply[1]).map((row) => asArray(row).map(asText));
    const accounts = rows.map(([accountId, name, origin, createdAt, lastSeen]) => ({
      accountId: present(accountId, 'the id in an account row'),
      name: present(name, 'the name in an account row'),
      origin: origin as AccountSummary['origin'],
      createdAt: present(createdAt, 'the creation time in an account row'),
      lastSeenMs: lastSeen === '' ? null : Number(lastSeen),
    }));
    const last = rows.at(-1);
    return { accounts, next: reply[0] === 1 && last ? present(last[5], 'the cursor in an account row') : null };
  }

  count(): Promise<number> {
    return this.connection.run((c) => c.zCard(`${this.prefix}accounts`));
  }

  async touch(accountId: string, atMs: number): Promise<void> {
    await this.connection.script(TOUCH_ACCOUNT, [this.prefix, accountId, String(atMs)]);
  }

  idleSince(beforeMs: number, limit: number): Promise<string[]> {
    return this.connection
      .run((c) => c.zRangeByScore(`${this.prefix}idle`, '-inf', `(${beforeMs}`, { LIMIT: { offset: 0, count: limit } }))
      .then((ids) => ids.map(asText));
  }

  due(nowMs: number, limit: number): Promise<string[]> {
    return this.connection
      .run((c) => c.zRangeByScore(`${this.prefix}due`, '-inf', nowMs, { LIMIT: { offset: 0, count: limit } }))
      .then((ids) => ids.map(asText));
  }

  /**
   * The stored document and its version, with the last request stored with it: the version
   * and that time only when the document is cached (one cheap command for the usual read of an
   * unchanged account), the document itself only when it changed.
   */
  async #read(accountId: string): Promise<{ entry: Cached; lastSeen: string } | null> {
    const key = `${this.prefix}acct:${accountId}`;
    const cached = this.#cache.get(accountId);
    if (cached) {
      const [version, lastSeen] = await this.connection.run((c) => c.hmGet(key, ['v', 'lastSeenMs']));
      if (version !== null && version !== undefined && asText(version) === cached.version) {
        this.#remember(accountId, cached);
        return { entry: cached, lastSeen: lastSeen === null || lastSeen === undefined ? '' : asText(lastSeen) };
      }
    }
    return this.#load(accountId);
  }

  /** The stored document and its version, read whole, and kept in the cache; with the last request stored with it. */
  async #load(accountId: string): Promise<{ entry: Cached; lastSeen: string } | null> {
    const key = `${this.prefix}acct:${accountId}`;
    const [version, json, lastSeen] = await this.connection.run((c) => c.hmGet(key, ['v', 'doc', 'lastSeenMs']));
    if (version === null || version === undefined || json === null || json === undefined) {
      this.#forget(accountId);
      return null;
    }
    const text = asText(json);
    const doc = deepFreeze(JSON.parse(text) as AccountDoc);
    const fresh: Cached = { version: asText(version), doc, entries: indexEntriesOf(doc), bytes: storedBytes(text) };
    this.#remember(accountId, fresh);
    return { entry: fresh, lastSeen: lastSeen === null || lastSeen === undefined ? '' : asText(lastSeen) };
  }

  /** Most recently used last; the least recently used go beyond the cache size (in documents and in bytes). */
  #remember(accountId: string, entry: Cached): void {
    this.#forget(accountId);
    this.#cache.set(accountId, entry);
    this.#cachedBytes += entry.bytes;
    while (this.#cache.size > this.cacheSize || this.#cachedBytes > this.cacheBytes) {
      const oldest = this.#cache.keys().next().value;
      if (oldest === undefined) break;
      this.#forget(oldest);
    }
  }

  #forget(accountId: string): void {
    const cached = this.#cache.get(accountId);
    if (!cached) return;
    this.#cache.delete(accountId);
    this.#cachedBytes -= cached.bytes;
  }
}
