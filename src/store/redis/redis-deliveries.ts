import type { DeepReadonly, DeliveryRecord } from '../data.js';
import { endedDelivery } from '../derived.js';
import { checkPendingDeliveries, NO_ACCOUNT_LIMITS, type AccountLimits } from '../limits.js';
import {
  AccountMissingError,
  QUEUE_STATS_ACCOUNTS,
  type DeliveryQuery,
  type DeliveryStore,
  type QueueStats,
} from '../store.js';
import { asArray, asText, decodeDelivery, encodeDelivery, type EncodedDelivery } from './codec.js';
import type { RedisConnection } from './connection.js';
import {
  ADD_DELIVERIES,
  CHANGE_DELIVERIES,
  CLAIM_DELIVERY,
  CLEAR_DELIVERIES,
  DUE_DELIVERIES,
  LIST_DELIVERIES,
  QUEUE_STATS,
  RELEASE_DELIVERY,
  REMOVE_DELIVERIES,
} from './lua.js';
import { Serially } from './serially.js';

type Change = EncodedDelivery & { old: string };

/**
 * An account's delivery log in Redis: `dlv:<id>` (records as JSON, by delivery id), `dmeta:<id>`
 * (what list() filters on), `dord:<id>` (creation order), `dpend:<id>` (pending ones by due time
 * on the account clock) and `dfin:<id>` (finished ones, trimmed oldest first to the log limit).
 * A claim is a key `lease:<id>:<deliveryId>` with a Redis TTL: it ends by itself when its holder dies.
 */
/** The account's pending deliveries (what MAX_PENDING_DELIVERIES bounds). */
export const pendingCount = (connection: RedisConnection, prefix: string, accountId: string): Promise<number> =>
  connection.run((c) => c.zCard(`${prefix}dpend:${accountId}`));

/** Records last read or written, kept so that an update can try its compare-and-set without reading first. */
const RAW_CACHE_SIZE = 10_000;

export class RedisDeliveries implements DeliveryStore {
  readonly #serially = new Serially();
  readonly #raw = new Map<string, string>();

  constructor(
    private readonly connection: RedisConnection,
    private readonly prefix: string,
    private readonly logLimit: number,
    private readonly limits: AccountLimits = NO_ACCOUNT_LIMITS,
  ) {}

  async get(accountId: string, deliveryId: string): Promise<DeepReadonly<DeliveryRecord> | null> {
    const json: unknown = await this.connection.run((c) => c.hGet(`${this.prefix}dlv:${accountId}`, deliveryId));
    return json === null || json === undefined ? null : decodeDelivery(asText(json));
  }

  async list(accountId: string, query: DeliveryQuery): Promise<{ total: number; items: DeliveryRecord[] }> {
    const { total, stored } = await this.#listStored(accountId, query);
    return { total, items: stored.map(decodeDelivery) };
  }

  /** The records as stored (JSON), for a compare-and-set against them. */
  async #listStored(accountId: string, query: DeliveryQuery): Promise<{ total: number; stored: string[] }> {
    const filters = {
      subscriptionId: query.subscriptionId,
      locationId: query.locationId,
      state: query.state,
      kind: query.kind,
    };
    const reply = asArray(
      await this.connection.script(LIST_DELIVERIES, [
        this.prefix,
        accountId,
        JSON.stringify(filters),
        String(Math.max(0, query.offset)),
        String(Math.max(0, query.limit)),
      ]),
    );
    return { total: Number(reply[0]), stored: asArray(reply[1]).map(asText) };
  }

  async add(accountId: string, records: readonly DeliveryRecord[]): Promise<void> {
    if (records.length > 0 && this.limits.pendingDeliveries > 0)
      checkPendingDeliveries(this.limits, await pendingCount(this.connection, this.prefix, accountId), records.length);
    const reply = asArray(
      await this.connection.script(ADD_DELIVERIES, [
        this.prefix,
        accountId,
        JSON.stringify(records.map((r) => encodeDelivery(r))),
      ]),
    );
    if (asText(reply[0]) === 'missing') throw new AccountMissingError(accountId);
  }

  update<T>(accountId: string, deliveryId: string, change: (record: DeliveryRecord) => T): Promise<T | null> {
    const key = `${accountId}/${deliveryId}`;
    return this.#serially.run(key, async () => {
      // First with the record as this replica last saw it (usually current: the dispatcher got it from due()), then as stored.
      let old: string | null = this.#raw.get(key) ?? null;
      for (;;) {
        if (old === null) {
          const stored: unknown = await this.connection.run((c) =>
            c.hGet(`${this.prefix}dlv:${accountId}`, deliveryId),
          );
          if (stored === null || stored === undefined) return null;
          old = asText(stored);
        }
        const draft = decodeDelivery(old);
        const result = change(draft);
        const json = JSON.stringify(draft);
        if (await this.#apply(accountId, [{ ...encodeDelivery(draft, json), old }])) {
          this.#remember(key, json);
          return result;
        }
        this.#raw.delete(key);
        old = null;
      }
    });
  }

  async due(
    accountId: string,
    nowMs: number,
    limit: number,
    skipOrigins: readonly string[] = [],
  ): Promise<DeliveryRecord[]> {
    const skip = skipOrigins.length === 0 ? '' : JSON.stringify(skipOrigins);
    const reply = asArray(
      await this.connection.script(DUE_DELIVERIES, [this.prefix, accountId, String(nowMs), String(limit), skip]),
    );
    return reply.map((raw) => {
      const json = asText(raw);
      const record = decodeDelivery(json);
      this.#remember(`${accountId}/${record.deliveryId}`, json);
      return record;
    });
  }

  async claim(
    accountId: string,
    deliveryId: string,
    owner: string,
    leaseMs: number,
    dueByMs?: number,
  ): Promise<boolean> {
    const lease = String(Math.max(1, Math.ceil(leaseMs)));
    return (
      (await this.connection.script(CLAIM_DELIVERY, [
        this.prefix,
        accountId,
        deliveryId,
        owner,
        lease,
        dueByMs === undefined ? '' : String(dueByMs),
      ])) === 1
    );
  }

  async release(accountId: string, deliveryId: string, owner: string): Promise<void> {
    await this.connection.script(RELEASE_DELIVERY, [this.prefix, accountId, deliveryId, owner]);
  }

  async nextDueMs(accountId: string): Promise<number | null> {
    const first = await this.connection.run((c) => c.zRangeWithScores(`${this.prefix}dpend:${accountId}`, 0, 0));
    const score = first[0]?.score;
    return score === undefined || !Number.isFinite(score) ? null : score;
  }

  async remove(accountId: string, deliveryIds: readonly string[]): Promise<number> {
    if (deliveryIds.length === 0) return 0;
    for (const id of deliveryIds) this.#raw.delete(`${accountId}/${id}`);
    return Number(
      await this.connection.script(REMOVE_DELIVERIES, [this.prefix, accountId, JSON.stringify(deliveryIds)]),
    );
  }

  async cancelPending(accountId: string, subscriptionId: string, note: string): Promise<number> {
    for (;;) {
      const { stored } = await this.#listStored(accountId, {
        subscriptionId,
        state: 'pending',
        offset: 0,
        limit: Number.MAX_SAFE_INTEGER,
      });
      if (stored.length === 0) return 0;
      const changes = stored.map((old): Change => ({
        ...encodeDelivery(endedDelivery(decodeDelivery(old), 'failed', note)),
        old,
      }));
      if (await this.#apply(accountId, changes)) return changes.length;
    }
  }

  async clear(accountId: string): Promise<void> {
    await this.connection.script(CLEAR_DELIVERIES, [this.prefix, accountId]);
  }

  async queue(nowMs: number): Promise<QueueStats> {
    const [deliveries, accounts, oldest] = asArray(
      await this.connection.script(QUEUE_STATS, [this.prefix, String(nowMs), String(QUEUE_STATS_ACCOUNTS)]),
    );
    const oldestText = asText(oldest);
    return {
      dueDeliveries: Number(deliveries),
      dueAccounts: Number(accounts),
      oldestDueMs: oldestText === '' ? null : Number(oldestText),
    };
  }

  #remember(key: string, json: string): void {
    this.#raw.delete(key);
    this.#raw.set(key, json);
    if (this.#raw.size > RAW_CACHE_SIZE) {
      const oldest = this.#raw.keys().next().value;
      if (oldest !== undefined) this.#raw.delete(oldest);
    }
  }

  /** False when a record changed since it was read (the caller reads again and redoes its change). */
  async #apply(accountId: string, changes: Change[]): Promise<boolean> {
    const reply = asArray(
      await this.connection.script(CHANGE_DELIVERIES, [
        this.prefix,
        accountId,
        String(this.logLimit),
        JSON.stringify(changes),
      ]),
    );
    return asText(reply[0]) === 'ok';
  }
}
