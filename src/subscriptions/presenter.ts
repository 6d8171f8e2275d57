import type { DeepReadonly, SubscriptionRecord } from '../store/data.js';
import type { PublicSubscription } from './schemas.js';

export function presentSubscription(s: DeepReadonly<SubscriptionRecord>): PublicSubscription {
  return { subscriptionId: s.subscriptionId, locationId: s.locationId, endpoint: s.endpoint, status: s.status };
}
