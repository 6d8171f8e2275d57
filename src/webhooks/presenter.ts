import type { DeepReadonly, DeliveryRecord } from '../store/data.js';
import { ATTEMPT_HEADER, DELIVERY_ID_HEADER } from './dispatcher.js';
import type { DeliveryView } from './operations.js';
import { headersOf } from './sender.js';

export function presentDelivery(x: DeepReadonly<DeliveryRecord>): DeliveryView {
  return {
    deliveryId: x.deliveryId,
    kind: x.kind,
    subscriptionId: x.subscriptionId,
    locationId: x.locationId,
    method: x.method,
    target: x.target,
    requestHeaders: headersOf({ body: x.method === 'POST' ? x.payload : undefined, headers: { [DELIVERY_ID_HEADER]: x.sentAsId ?? x.deliveryId, [ATTEMPT_HEADER]: '1' } }),
    payload: structuredClone(x.payload),
    state: x.state,
    attempts: x.attempts.map((a) => ({ ...a, warnings: [...a.warnings] })),
    createdAt: x.createdAt,
    nextAttemptAt: x.nextAttemptAt,
    redeliveryOf: x.redeliveryOf ?? null,
    drill: x.drill ?? null,
    note: x.note ?? null,
  };
}
