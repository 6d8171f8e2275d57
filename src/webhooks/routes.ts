import type { Router } from 'express';

import { operationRouter } from '../http/operation.js';
import { authOf } from '../http/request-context.js';
import { deliveriesPage, deliveryAnswer, redeliverAnswer, type DeliveriesDeps } from './answers.js';
import { getDeliveryOp, listDeliveriesOp, redeliverOp } from './operations.js';

/** /sandbox/deliveries: the account's delivery log, and redelivery. */
export function deliveriesSandboxRouter(deps: DeliveriesDeps): Router {
  const api = operationRouter('/sandbox');

  api.handle(listDeliveriesOp, async ({ query }, _req, res) => {
    res.json(await deliveriesPage(deps, authOf(res).accountId, query()));
  });

  api.handle(getDeliveryOp, async ({ params }, _req, res) => {
    res.json(await deliveryAnswer(deps, authOf(res).accountId, params.deliveryId));
  });

  // Sends the same request again as a new delivery, whatever the first one's state.
  api.handle(redeliverOp, async ({ params, body }, _req, res) => {
    const sameDeliveryId = body()?.sameDeliveryId ?? false;
    res.status(201).json(await redeliverAnswer(deps, authOf(res).accountId, params.deliveryId, { sameDeliveryId }));
  });

  return api.done();
}
