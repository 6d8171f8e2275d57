import type { Data } from '../store/data.js';

/**
 * Keeps the newest `limit` finished deliveries of the account (pending ones are always kept),
 * so the log's memory stays flat however long the sandbox runs. Returns how many were dropped.
 */
export function pruneDeliveryLog(data: Data, accountId: string, limit: number): number {
  let finishedSeen = 0;
  const drop = new Set<number>();
  for (let i = data.deliveries.length - 1; i >= 0; i--) {
    const x = data.deliveries[i];
    if (!x || x.accountId !== accountId || x.state === 'pending') continue;
    finishedSeen++;
    if (finishedSeen > limit) drop.add(i);
  }
  if (drop.size > 0) data.deliveries = data.deliveries.filter((_, i) => !drop.has(i));
  return drop.size;
}

/**
 * Ends the pending deliveries of a deleted subscription: production stops notifying a
 * subscription once it is deleted, and retrying an endpoint the partner gave up is noise.
 * An attempt already in flight is still recorded when it returns.
 */
export function cancelPendingDeliveries(data: Data, subscriptionId: string, reason: string): number {
  let cancelled = 0;
  for (const x of data.deliveries) {
    if (x.subscriptionId !== subscriptionId || x.state !== 'pending') continue;
    x.state = 'failed';
    x.dueAtMs = null;
    x.nextAttemptAt = null;
    x.note = reason;
    cancelled++;
  }
  return cancelled;
}
