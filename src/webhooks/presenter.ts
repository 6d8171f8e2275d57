import type { DeepReadonly, DeliveryAttempt, DeliveryKind, DeliveryRecord, DeliveryState } from '../store/data.js';
import { ATTEMPT_HEADER, DELIVERY_ID_HEADER } from './dispatcher.js';
import { headersOf } from './sender.js';

/** A delivery as /sandbox/deliveries shows it: what was sent, where, and every answer. */
export interface DeliveryView {
  deliveryId: string;
  kind: DeliveryKind;
  subscriptionId: string | null;
  locationId: string | null;
  method: 'POST' | 'GET';
  target: string;
  /** The request's headers on its first attempt; X-Sandbox-Attempt counts up on each retry. */
  requestHeaders: Record<string, string>;
  payload: unknown;
  state: DeliveryState;
  attempts: DeliveryAttempt[];
  createdAt: string;
  nextAttemptAt: string | null;
  redeliveryOf: string | null;
  note: string | null;
}

export function presentDelivery(x: DeepReadonly<DeliveryRecord>): DeliveryView {
  return {
    deliveryId: x.deliveryId,
    kind: x.kind,
    subscriptionId: x.subscriptionId,
    locationId: x.locationId,
    method: x.method,
    target: x.target,
    requestHeaders: headersOf({ body: x.method === 'POST' ? x.payload : undefined, headers: { [DELIVERY_ID_HEADER]: x.deliveryId, [ATTEMPT_HEADER]: '1' } }),
    payload: structuredClone(x.payload),
    state: x.state,
    attempts: x.attempts.map((a) => ({ ...a, warnings: [...a.warnings] })),
    createdAt: x.createdAt,
    nextAttemptAt: x.nextAttemptAt,
    redeliveryOf: x.redeliveryOf ?? null,
    note: x.note ?? null,
  };
}
