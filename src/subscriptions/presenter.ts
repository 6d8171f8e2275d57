import type { DeepReadonly, SubscriptionRecord, SubscriptionStatus } from '../store/data.js';

/** Production's Subscription object, with exactly its keys. */
export interface PublicSubscription {
  subscriptionId: string;
  locationId: string;
  endpoint: string;
  status: SubscriptionStatus;
}

export function presentSubscription(s: DeepReadonly<SubscriptionRecord>): PublicSubscription {
  return { subscriptionId: s.subscriptionId, locationId: s.locationId, endpoint: s.endpoint, status: s.status };
}
