import { pageOf } from '../http/pagination.js';
import type { AccountDoc, DeepReadonly, SubscriptionRecord } from '../store/data.js';
import { findLocation } from '../store/lookups.js';
import { DEFAULT_SUBSCRIPTIONS_PER_PAGE, type PublicSubscription } from './schemas.js';

export function presentSubscription(s: DeepReadonly<SubscriptionRecord>): PublicSubscription {
  return { subscriptionId: s.subscriptionId, locationId: s.locationId, endpoint: s.endpoint, status: s.status };
}

/**
 * What GET /v1/subscriptions answers, or with a location GET /v1/locations/{locationId}/subscriptions
 * (a 404 for a location the account does not have): a page of the subscriptions.
 */
export function subscriptionsPage(
  doc: DeepReadonly<AccountDoc>,
  asked: { locationId?: string | undefined; page?: number | undefined; perPage?: number | undefined },
) {
  const locationId = asked.locationId === undefined ? undefined : findLocation(doc, asked.locationId).locationId;
  const subscriptions = doc.subscriptions
    .filter((s) => locationId === undefined || s.locationId === locationId)
    .map(presentSubscription);
  return pageOf('subscriptions', subscriptions, {
    page: asked.page ?? 1,
    perPage: asked.perPage ?? DEFAULT_SUBSCRIPTIONS_PER_PAGE,
  });
}
