import type { Router } from 'express';

import { internalError, notFound } from '../core/errors.js';
import { operationRouter } from '../http/operation.js';
import { authOf } from '../http/request-context.js';
import type { DeepReadonly, DeliveryRecord } from '../store/data.js';
import type { Store } from '../store/store.js';
import { redeliveryOf } from './delivery-transitions.js';
import type { Dispatcher } from './dispatcher.js';
import {
  DEFAULT_DELIVERIES_PER_PAGE,
  getDeliveryOp,
  listDeliveriesOp,
  redeliverOp,
  type DeliveryView,
} from './operations.js';
import { presentDelivery } from './presenter.js';

export interface DeliveriesDeps {
  store: Store;
  dispatcher: Dispatcher;
  /** Whether a confirmation's token to `target` is for the endpoint only, and hidden from the account's log. */
  confirmationTokenHidden?: (accountId: string, target: string) => boolean;
}

const missing = (deliveryId: string): Error =>
  notFound(`No delivery ${JSON.stringify(deliveryId)} in this account (the log keeps the newest finished deliveries)`);

/** /sandbox/deliveries: the account's delivery log, and redelivery. */
export function deliveriesSandboxRouter(deps: DeliveriesDeps): Router {
  const api = operationRouter('/sandbox');
  const present = (accountId: string, delivery: DeepReadonly<DeliveryRecord>): DeliveryView =>
    presentDelivery(delivery, { hideToken: deps.confirmationTokenHidden?.(accountId, delivery.target) ?? false });

  api.handle(listDeliveriesOp, async ({ query }, _req, res) => {
    const { accountId } = authOf(res);
    const { subscriptionId, locationId, state, kind, page = 1, perPage = DEFAULT_DELIVERIES_PER_PAGE } = query();
    const { total, items } = await deps.store.deliveries.list(accountId, {
      ...(subscriptionId === undefined ? {} : { subscriptionId }),
      ...(locationId === undefined ? {} : { locationId }),
      ...(state === undefined ? {} : { state }),
      ...(kind === undefined ? {} : { kind }),
      offset: (page - 1) * perPage,
      limit: perPage,
    });
    res.json({
      page,
      perPage,
      pageCount: Math.ceil(total / perPage),
      total,
      deliveries: items.map((d) => present(accountId, d)),
    });
  });

  api.handle(getDeliveryOp, async ({ params }, _req, res) => {
    const { accountId } = authOf(res);
    const delivery = await deps.store.deliveries.get(accountId, params.deliveryId);
    if (!delivery) throw missing(params.deliveryId);
    res.json(present(accountId, delivery));
  });

  // Sends the same request again as a new delivery, whatever the first one's state.
  api.handle(redeliverOp, async ({ params, body }, _req, res) => {
    const { accountId } = authOf(res);
    const sameDeliveryId = body()?.sameDeliveryId ?? false;
    const original = await deps.store.deliveries.get(accountId, params.deliveryId);
    if (!original) throw missing(params.deliveryId);
    const [copy] = await deps.dispatcher.enqueue(accountId, [redeliveryOf(original, { sameDeliveryId })]);
    if (copy === undefined) throw internalError('enqueue returned no copy of the delivery');
    res.status(201).json(present(accountId, copy));
  });

  return api.done();
}
