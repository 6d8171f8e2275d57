import { Router } from 'express';

import { invalidParameter, notFound } from '../core/errors.js';
import { parsePaging } from '../http/pagination.js';
import { authOf } from '../http/request-context.js';
import { allowOnly, queryString } from '../http/routing.js';
import type { DeliveryKind, DeliveryState } from '../store/data.js';
import type { Store } from '../store/store.js';
import type { Dispatcher } from './dispatcher.js';
import { presentDelivery } from './presenter.js';

const DEFAULT_DELIVERIES_PER_PAGE = 50;
const STATES: readonly DeliveryState[] = ['pending', 'delivered', 'failed'];
const KINDS: readonly DeliveryKind[] = ['confirmation', 'alert', 'token', 'receiver_check'];
const LIST_QUERY = ['subscriptionId', 'locationId', 'state', 'kind', 'page', 'perPage'];

export interface DeliveriesDeps {
  store: Store;
  dispatcher: Dispatcher;
}

function oneOf<T extends string>(query: Record<string, unknown>, name: string, values: readonly T[]): T | undefined {
  const value = queryString(query, name);
  if (value === undefined) return undefined;
  if (!(values as readonly string[]).includes(value)) throw invalidParameter(name, `${name} must be one of ${values.join(', ')}; got ${JSON.stringify(value)}`);
  return value as T;
}

const missing = (deliveryId: string): Error => notFound(`No delivery ${JSON.stringify(deliveryId)} in this account (the log keeps the newest finished deliveries)`);

/** /sandbox/deliveries: the account's delivery log, and redelivery. */
export function deliveriesSandboxRouter(deps: DeliveriesDeps): Router {
  const router = Router({ strict: true });

  router.get('/deliveries', async (req, res) => {
    const { accountId } = authOf(res);
    const query = req.query as Record<string, unknown>;
    const unknown = Object.keys(query).filter((k) => !LIST_QUERY.includes(k));
    if (unknown[0] !== undefined) throw invalidParameter(unknown[0], `Unknown query parameter ${JSON.stringify(unknown[0])}; the filters are ${LIST_QUERY.join(', ')}`);
    const subscriptionId = queryString(query, 'subscriptionId');
    const locationId = queryString(query, 'locationId');
    const state = oneOf(query, 'state', STATES);
    const kind = oneOf(query, 'kind', KINDS);
    const { page, perPage } = parsePaging(query, DEFAULT_DELIVERIES_PER_PAGE);
    const { total, items } = await deps.store.deliveries.list(accountId, {
      ...(subscriptionId === undefined ? {} : { subscriptionId }),
      ...(locationId === undefined ? {} : { locationId }),
      ...(state === undefined ? {} : { state }),
      ...(kind === undefined ? {} : { kind }),
      offset: (page - 1) * perPage,
      limit: perPage,
    });
    res.json({ page, perPage, pageCount: Math.ceil(total / perPage), total, deliveries: items.map(presentDelivery) });
  });
  allowOnly(router, '/deliveries', ['GET']);

  router.get('/deliveries/:deliveryId', async (req, res) => {
    const { accountId } = authOf(res);
    const delivery = await deps.store.deliveries.get(accountId, req.params.deliveryId);
    if (!delivery) throw missing(req.params.deliveryId);
    res.json(presentDelivery(delivery));
  });
  allowOnly(router, '/deliveries/:deliveryId', ['GET']);

  // Sends the same request again as a new delivery, whatever the first one's state.
  router.post('/deliveries/:deliveryId/redeliver', async (req, res) => {
    const { accountId } = authOf(res);
    const body: unknown = req.body;
    if (body !== undefined && (typeof body !== 'object' || body === null || Object.keys(body).length > 0)) {
      throw invalidParameter('body', 'redeliver takes no body; send an empty request');
    }
    const original = await deps.store.deliveries.get(accountId, req.params.deliveryId);
    if (!original) throw missing(req.params.deliveryId);
    const [copy] = await deps.dispatcher.enqueue(accountId, [
      {
        accountId,
        kind: original.kind,
        subscriptionId: original.subscriptionId,
        locationId: original.locationId,
        method: original.method,
        target: original.target,
        payload: structuredClone(original.payload),
        redeliveryOf: original.deliveryId,
      },
    ]);
    res.status(201).json(presentDelivery(copy!));
  });
  allowOnly(router, '/deliveries/:deliveryId/redeliver', ['POST']);

  return router;
}
