import type { z } from 'zod';

import { internalError, notFound } from '../core/errors.js';
import type { DeepReadonly, DeliveryRecord } from '../store/data.js';
import type { Store } from '../store/store.js';
import { redeliveryOf } from './delivery-transitions.js';
import type { Dispatcher } from './dispatcher.js';
import { DEFAULT_DELIVERIES_PER_PAGE, type DeliveryListQuery, type DeliveryView } from './operations.js';
import { presentDelivery } from './presenter.js';

export interface DeliveriesDeps {
  store: Store;
  dispatcher: Dispatcher;
  /** Whether a confirmation's token to `target` is for the endpoint only, and hidden from the account's log. */
  confirmationTokenHidden?: (accountId: string, target: string) => boolean;
}

const missing = (deliveryId: string): Error =>
  notFound(`No delivery ${JSON.stringify(deliveryId)} in this account (the log keeps the newest finished deliveries)`);

/** A delivery of the account as its log shows it (a confirmation's token hidden where it is for the endpoint only). */
export const presentLogged = (
  deps: Pick<DeliveriesDeps, 'confirmationTokenHidden'>,
  accountId: string,
  delivery: DeepReadonly<DeliveryRecord>,
): DeliveryView =>
  presentDelivery(delivery, { hideToken: deps.confirmationTokenHidden?.(accountId, delivery.target) ?? false });

/** What GET /sandbox/deliveries answers: a page of the account's delivery log, newest first, filtered. */
export async function deliveriesPage(
  deps: DeliveriesDeps,
  accountId: string,
  query: z.output<typeof DeliveryListQuery>,
) {
  const { subscriptionId, locationId, state, kind, page = 1, perPage = DEFAULT_DELIVERIES_PER_PAGE } = query;
  const { total, items } = await deps.store.deliveries.list(accountId, {
    ...(subscriptionId === undefined ? {} : { subscriptionId }),
    ...(locationId === undefined ? {} : { locationId }),
    ...(state === undefined ? {} : { state }),
    ...(kind === undefined ? {} : { kind }),
    offset: (page - 1) * perPage,
    limit: perPage,
  });
  return {
    page,
    perPage,
    pageCount: Math.ceil(total / perPage),
    total,
    deliveries: items.map((d) => presentLogged(deps, accountId, d)),
  };
}

/** What GET /sandbox/deliveries/{deliveryId} answers (a 404 for a delivery the account's log does not hold). */
export async function deliveryAnswer(
  deps: DeliveriesDeps,
  accountId: string,
  deliveryId: string,
): Promise<DeliveryView> {
  const delivery = await deps.store.deliveries.get(accountId, deliveryId);
  if (!delivery) throw missing(deliveryId);
  return presentLogged(deps, accountId, delivery);
}

/** Sends a delivery again as a new one, whatever the first one's state, as POST .../redeliver does (with 201). */
export async function redeliverAnswer(
  deps: DeliveriesDeps,
  accountId: string,
  deliveryId: string,
  options: { sameDeliveryId: boolean },
): Promise<DeliveryView> {
  const original = await deps.store.deliveries.get(accountId, deliveryId);
  if (!original) throw missing(deliveryId);
  const [copy] = await deps.dispatcher.enqueue(accountId, [redeliveryOf(original, options)]);
  if (copy === undefined) throw internalError('enqueue returned no copy of the delivery');
  return presentLogged(deps, accountId, copy);
}
