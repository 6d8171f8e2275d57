import type { DeepReadonly, DeliveryRecord } from '../store/data.js';
import type { DeliveryView } from './operations.js';

export function presentDelivery(x: DeepReadonly<DeliveryRecord>): DeliveryView {
  return {
    deliveryId: x.deliveryId,
    kind: x.kind,
    subscriptionId: x.subscriptionId,
    locationId: x.locationId,
    method: x.method,
    target: x.target,
    payload: structuredClone(x.payload),
    state: x.state,
    attempts: x.attempts.map((a) => ({ ...a, warnings: [...a.warnings] })),
    createdAt: x.createdAt,
    nextAttemptAt: x.nextAttemptAt,
    redeliveryOf: x.redeliveryOf ?? null,
    note: x.note ?? null,
  };
}
