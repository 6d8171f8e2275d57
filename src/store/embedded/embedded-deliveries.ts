import { performance } from 'node:perf_hooks';

import { present } from '../../core/errors.js';
import type { DeepReadonly, DeliveryRecord } from '../data.js';
import { deliveryDueMs, earliest, endedDelivery, originOf } from '../derived.js';
import { checkPendingDeliveries, type AccountLimits } from '../limits.js';
import {
  AccountMissingError,
  QUEUE_STATS_ACCOUNTS,
  type DeliveryQuery,
  type DeliveryStore,
  type QueueStats,
} from '../store.js';
import type { AccountCache } from './account-cache.js';
import type { AccountIndex } from './account-index.js';
import {
  addDelivery,
  changedInPlace,
  finishDelivery,
  nextDeliveryDueMs,
  type LoadedAccount,
} from './loaded-account.js';

/**
 * The delivery logs of the embedded store, kept in each account's file with its document.
 * Claims are held in memory (real time: a claim outlives no process).
 */
export class EmbeddedDeliveries implements DeliveryStore {
  /** Claims on deliveries: who holds each, and until when. */
  readonly #leases = new Map<string, { owner: string; untilMs: number }>();

  constructor(
    private readonly cache: AccountCache,
    private readonly index: AccountIndex,
    private readonly logLimit: number,
    private readonly limits: AccountLimits,
  ) {}

  get(accountId: string, deliveryId: string): Promise<DeepReadonly<DeliveryRecord> | null> {
    return this.cache.with(accountId, (loaded) => loaded?.byId.get(deliveryId) ?? null);
  }

  list(accountId: string, query: DeliveryQuery): Promise<{ total: number; items: DeepReadonly<DeliveryRecord>[] }> {
    return this.cache.with(accountId, (loaded) => listDeliveries(loaded, query));
  }

  add(accountId: string, records: readonly DeliveryRecord[]): Promise<void> {
    return this.cache.with(accountId, async (loaded) => {
      if (!loaded) throw new AccountMissingError(accountId);
      checkPendingDeliveries(this.limits, loaded.pending.size, records.length);
      for (const record of records) addDelivery(loaded, structuredClone(record));
      await this.cache.save(accountId, loaded);
    });
  }

  update<T>(accountId: string, deliveryId: string, change: (record: DeliveryRecord) => T): Promise<T | null> {
    return this.cache.with(accountId, async (loaded) => {
      const current = loaded?.byId.get(deliveryId);
      if (!loaded || !current) return null;
      const changed = structuredClone(current);
      const result = change(changed);
      // A copy is stored: the change may keep references to its draft.
      this.#replace(loaded, current, structuredClone(changed));
      // A failed attempt of a delivery still pending is bookkeeping a crash may lose (the delivery is
      // tried again sooner, never lost), so it is written within a second, together with the others:
      // a full log retrying a thousand deliveries is not written again at each attempt. A delivery
      // that ends, or any other change, is written before the update returns.
      const stillPending = current.state === 'pending' && changed.state === 'pending';
      await this.cache.save(accountId, loaded, undefined, !stillPending);
      return result;
    });
  }

  due(accountId: string, nowMs: number, limit: number, skipOrigins: readonly string[] = []): Promise<DeliveryRecord[]> {
    return this.cache.with(accountId, (loaded) => {
      if (!loaded) return [];
      const skip = new Set(skipOrigins);
      const due: DeliveryRecord[] = [];
      for (const id of loaded.pending) {
        const record = loaded.byId.get(id);
        const at = record ? deliveryDueMs(record) : null;
        if (record && at !== null && at <= nowMs) due.push(record);
      }
      // Stable: deliveries due at one instant stay in creation order.
      due.sort((a, b) => (a.dueAtMs ?? 0) - (b.dueAtMs ?? 0));
      // A subscription's first delivery in that order is the only one given, unless it is claimed
      // (a claimed one was due when claimed, so it comes before those of its subscription due since).
      const busy = new Set<string>();
      const given: DeliveryRecord[] = [];
      for (const record of due) {
        if (given.length >= limit) break;
        const { subscriptionId } = record;
        if (subscriptionId !== null) {
          if (busy.has(subscriptionId)) continue;
          busy.add(subscriptionId);
        }
        if (this.#claimed(record.deliveryId)) continue;
        if (skip.size > 0 && skip.has(originOf(record.target))) continue;
        given.push(structuredClone(record));
      }
      return given;
    });
  }

  claim(accountId: string, deliveryId: string, owner: string, leaseMs: number, dueByMs?: number): Promise<boolean> {
    return this.cache.with(accountId, (loaded) => {
      if (!loaded?.pending.has(deliveryId)) return false;
      if (dueByMs !== undefined) {
        const at = deliveryDueMs(present(loaded.byId.get(deliveryId), 'the record of a pending delivery'));
        if (at === null || at > dueByMs) return false;
      }
      // A live claim is exclusive, even against its own owner: two rounds of one process must not both send.
      if (this.#claimed(deliveryId)) return false;
      this.#leases.set(deliveryId, { owner, untilMs: performance.now() + leaseMs });
      return true;
    });
  }

  release(_accountId: string, deliveryId: string, owner: string): Promise<void> {
    if (this.#leases.get(deliveryId)?.owner === owner) this.#leases.delete(deliveryId);
    return Promise.resolve();
  }

  nextDueMs(accountId: string): Promise<number | null> {
    return this.cache.with(accountId, (loaded) => (loaded ? nextDeliveryDueMs(loaded) : null));
  }

  remove(accountId: string, deliveryIds: readonly string[]): Promise<number> {
    return this.cache.with(accountId, async (loaded) => {
      if (!loaded) return 0;
      const taken = new Set(deliveryIds.filter((id) => loaded.byId.has(id)));
      if (taken.size === 0) return 0;
      loaded.file.data.deliveries = loaded.file.data.deliveries.filter((x) => !taken.has(x.deliveryId));
      for (const id of taken) {
        if (!loaded.pending.delete(id)) loaded.finished--;
        loaded.byId.delete(id);
        this.#leases.delete(id);
      }
      await this.cache.save(accountId, loaded);
      return taken.size;
    });
  }

  cancelPending(accountId: string, subscriptionId: string, note: string): Promise<number> {
    return this.cache.with(accountId, async (loaded) => {
      if (!loaded) return 0;
      let cancelled = 0;
      for (const id of [...loaded.pending]) {
        const record = loaded.byId.get(id);
        if (!record || record.subscriptionId !== subscriptionId) continue;
        // Changed in place: its place in the log is kept without a search.
        Object.assign(record, endedDelivery(record, 'failed', note));
        changedInPlace(record);
        finishDelivery(loaded, id, this.logLimit);
        cancelled++;
      }
      if (cancelled > 0) await this.cache.save(accountId, loaded);
      return cancelled;
    });
  }

  clear(accountId: string): Promise<void> {
    return this.cache.with(accountId, async (loaded) => {
      if (!loaded) return;
      this.forgetClaims(loaded);
      loaded.file.data.deliveries = [];
      loaded.byId.clear();
      loaded.pending.clear();
      loaded.finished = 0;
      await this.cache.save(accountId, loaded);
    });
  }

  async queue(nowMs: number): Promise<QueueStats> {
    const due = this.index.dueAt(nowMs);
    let dueDeliveries = 0;
    let oldestDueMs: number | null = null;
    for (const [accountId, at] of due.slice(0, QUEUE_STATS_ACCOUNTS)) {
      // 0 is a frozen clock's "due at once": it has no instant to age from.
      if (at > 0) oldestDueMs = earliest(oldestDueMs, at);
      dueDeliveries += await this.cache.with(accountId, (loaded) => (loaded ? dueCount(loaded, nowMs) : 0));
    }
    return { dueDeliveries, dueAccounts: due.length, oldestDueMs };
  }

  /** Ends the claims on the account's deliveries (it is deleted, or its log cleared). */
  forgetClaims(loaded: LoadedAccount): void {
    for (const id of loaded.byId.keys()) this.#leases.delete(id);
  }

  #claimed(deliveryId: string): boolean {
    const lease = this.#leases.get(deliveryId);
    return lease !== undefined && lease.untilMs > performance.now();
  }

  /** Puts `next` in the place of `current` in the log; a change ends any claim on it, and one that leaves `pending` finishes it. */
  #replace(loaded: LoadedAccount, current: DeliveryRecord, next: DeliveryRecord): void {
    const list = loaded.file.data.deliveries;
    list[list.indexOf(current)] = next;
    loaded.byId.set(next.deliveryId, next);
    this.#leases.delete(next.deliveryId);
    if (next.state === 'pending') loaded.pending.add(next.deliveryId);
    else if (loaded.pending.has(next.deliveryId)) finishDelivery(loaded, next.deliveryId, this.logLimit);
  }
}

/** The account's pending deliveries due at `nowMs` on the process clock (on its own clock, that is). */
function dueCount(loaded: LoadedAccount, nowMs: number): number {
  const { clock } = loaded.file.data.doc;
  const virtualNow = clock.frozenAtMs ?? nowMs + clock.offsetMs;
  let n = 0;
  for (const id of loaded.pending) {
    const at = deliveryDueMs(present(loaded.byId.get(id), 'the record of a pending delivery'));
    if (at !== null && at <= virtualNow) n++;
  }
  return n;
}

/**
 * The records themselves, not copies (a stored record is replaced by a change, never changed
 * through what a reader holds): a readiness fold reads an account's whole log, a thousand
 * records when it is full, and copying them all took milliseconds of the event loop.
 */
function listDeliveries(
  loaded: LoadedAccount | null,
  query: DeliveryQuery,
): { total: number; items: DeepReadonly<DeliveryRecord>[] } {
  if (!loaded) return { total: 0, items: [] };
  const list = loaded.file.data.deliveries;
  const items: DeepReadonly<DeliveryRecord>[] = [];
  let total = 0;
  for (let i = list.length - 1; i >= 0; i--) {
    const x = present(list[i], 'a delivery of the log');
    if (query.subscriptionId !== undefined && x.subscriptionId !== query.subscriptionId) continue;
    if (query.locationId !== undefined && x.locationId !== query.locationId) continue;
    if (query.state !== undefined && x.state !== query.state) continue;
    if (query.kind !== undefined && x.kind !== query.kind) continue;
    if (total >= query.offset && items.length < query.limit) items.push(x);
    total++;
  }
  return { total, items };
}
