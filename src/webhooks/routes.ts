import { Router } from 'express';

import { invalidParameter, notFound } from '../core/errors.js';
import type { Deps } from '../deps.js';
import { pageOf, parsePaging } from '../http/pagination.js';
import { authOf } from '../http/request-context.js';
import { allowOnly, queryString } from '../http/routing.js';
import type { Data, DeepReadonly, DeliveryKind, DeliveryRecord, DeliveryState } from '../store/data.js';
import { presentDelivery } from './presenter.js';

const DEFAULT_DELIVERIES_PER_PAGE = 50;
const STATES: readonly DeliveryState[] = ['pending', 'delivered', 'failed'];
const KINDS: readonly DeliveryKind[] = ['confirmation', 'alert', 'token', 'receiver_check'];
const LIST_QUERY = ['subscriptionId', 'locationId', 'state', 'kind', 'page', 'perPage'];

function findOwnDelivery(data: DeepReadonly<Data>, accountId: string, deliveryId: string): DeepReadonly<DeliveryRecord> {
  const delivery = data.deliveries.find((x) => x.deliveryId === deliveryId && x.accountId === accountId);
  if (!delivery) throw notFound(`No delivery ${JSON.stringify(deliveryId)} in this account (the log keeps the newest finished deliveries)`);
  return delivery;
}

function oneOf<T extends string>(query: Record<string, unknown>, name: string, values: readonly T[]): T | undefined {
  const value = queryString(query, name);
  if (value === undefined) return undefined;
  if (!(values as readonly string[]).includes(value)) throw invalidParameter(name, `${name} must be one of ${values.join(', ')}; got ${JSON.stringify(value)}`);
  return value as T;
}

/** /sandbox/deliveries: the account's delivery log, and redelivery. */
export function deliveriesSandboxRouter(deps: Deps): Router {
  const router = Router({ strict: true });

  router.get('/deliveries', (req, res) => {
    const { accountId } = authOf(res);
    const query = req.query as Record<string, unknown>;
    const unknown = Object.keys(query).filter((k) => !LIST_QUERY.includes(k));
    if (unknown[0] !== undefined) throw invalidParameter(unknown[0], `Unknown query parameter ${JSON.stringify(unknown[0])}; the filters are ${LIST_QUERY.join(', ')}`);
    const subscriptionId = queryString(query, 'subscriptionId');
    const locationId = queryString(query, 'locationId');
    const state = oneOf(query, 'state', STATES);
    const kind = oneOf(query, 'kind', KINDS);
    const paging = parsePaging(query, DEFAULT_DELIVERIES_PER_PAGE);
    const deliveries = deps.store.read((d) =>
      d.deliveries
        .filter(
          (x) =>
            x.accountId === accountId &&
            (subscriptionId === undefined || x.subscriptionId === subscriptionId) &&
            (locationId === undefined || x.locationId === locationId) &&
            (state === undefined || x.state === state) &&
            (kind === undefined || x.kind === kind),
        )
        .reverse(),
    );
    const page = pageOf('deliveries', deliveries, paging);
    res.json({ ...page, deliveries: page.deliveries.map(presentDelivery) });
  });
  allowOnly(router, '/deliveries', ['GET']);

  router.get('/deliveries/:deliveryId', (req, res) => {
    const { accountId } = authOf(res);
    res.json(presentDelivery(deps.store.read((d) => findOwnDelivery(d, accountId, req.params.deliveryId))));
  });
  allowOnly(router, '/deliveries/:deliveryId', ['GET']);

  // Sends the same request again as a new delivery, whatever the first one's state.
  router.post('/deliveries/:deliveryId/redeliver', async (req, res) => {
    const { accountId } = authOf(res);
    const body: unknown = req.body;
    if (body !== undefined && (typeof body !== 'object' || body === null || Object.keys(body).length > 0)) {
      throw invalidParameter('body', 'redeliver takes no body; send an empty request');
    }
    const original = deps.store.read((d) => findOwnDelivery(d, accountId, req.params.deliveryId));
    const copy = await deps.dispatcher.enqueue({
      accountId,
      kind: original.kind,
      subscriptionId: original.subscriptionId,
      locationId: original.locationId,
      method: original.method,
      target: original.target,
      payload: structuredClone(original.payload),
      redeliveryOf: original.deliveryId,
    });
    res.status(201).json(presentDelivery(copy));
  });
  allowOnly(router, '/deliveries/:deliveryId/redeliver', ['POST']);

  return router;
}
