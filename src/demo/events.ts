import type { Store } from '../store/store.js';

/**
 * What the presenter view's streams hear beside the account's own events (src/live): its story,
 * prospect or location changed, or an audience link was revoked. On the store's event bus, so
 * the streams of every replica hear what any replica did. A channel of its own: the dashboard's
 * streams, which carry the account's channel, know none of these messages.
 */
export type DemoEvent = { type: 'changed' } | { type: 'link-revoked'; linkId: string };

export const demoChannel = (accountId: string): string => `demo:${accountId}`;

/** Publishes; a failure to publish is not the caller's failure (the state is stored; viewers catch up). */
export async function publishDemoEvent(store: Store, accountId: string, event: DemoEvent): Promise<void> {
  try {
    await store.events.publish(demoChannel(accountId), event);
  } catch {
    // Live updates are best effort.
  }
}
