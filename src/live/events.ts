import type { Store } from '../store/store.js';

/**
 * What happens in an account, as it happens: deliveries, alerts, scenario steps, clock
 * moves, subscription and home/away changes, and the requests its journal records. Published
 * on the store's event bus, so a dashboard or a relay connected to any replica hears what
 * every replica does.
 */
export type AccountEvent =
  | { type: 'delivery'; deliveryId: string; kind: string; state: string; attempt: string | null }
  | { type: 'alert'; alertId: string; locationId: string; active: boolean }
  | { type: 'run'; runId: string; state: string; nextStep: number }
  | { type: 'clock'; now: string; offsetSeconds: number; frozen: boolean }
  | { type: 'subscription'; subscriptionId: string; locationId: string; status: 'pending' | 'confirmed' | 'deleted' }
  | { type: 'location'; locationId: string; homeAway: string }
  | { type: 'request'; method: string; path: string; status: number }
  | { type: 'readiness' }
  | { type: 'reset' };

export const accountChannel = (accountId: string): string => `account:${accountId}`;

/** Publishes an event of the account; a failure to publish is not the caller's failure. */
export async function publishAccountEvent(store: Store, accountId: string, event: AccountEvent): Promise<void> {
  try {
    await store.events.publish(accountChannel(accountId), event);
  } catch {
    // Live updates are best effort: the state itself is already stored.
  }
}
