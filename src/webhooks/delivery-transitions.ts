import type { DeepReadonly, DeliveryAttempt, DeliveryDrill, DeliveryKind, DeliveryRecord } from '../store/data.js';
import { endedDelivery } from '../store/derived.js';

/**
 * A delivery's life, as pure functions of the record: it is made `pending`, due at once; each
 * attempt either delivers it, schedules a retry (`dueAtMs` on the account clock), or, when its
 * attempts are used up or its address is refused, fails it; a deleted subscription fails its
 * pending deliveries with a note. The dispatcher and the stores persist what these decide.
 */

export interface NewDelivery {
  accountId: string;
  kind: DeliveryKind;
  subscriptionId: string | null;
  locationId: string | null;
  method?: 'POST' | 'GET';
  target: string;
  payload: unknown;
  /** The delivery this one sends again. */
  redeliveryOf?: string;
  /** Send it with this X-Sandbox-Delivery-Id instead of its own: a duplicate of the delivery of that id. */
  sentAsId?: string;
  /** The readiness drill that makes it (left out of the record when undefined). */
  drill?: DeliveryDrill | undefined;
  /** Follow the first attempt with a GET check of the endpoint (confirmations). */
  checkReceiverAfter?: boolean;
}

/** WEBHOOK_MAX_ATTEMPTS and WEBHOOK_BACKOFF_MS. */
export interface RetryPolicy {
  maxAttempts: number;
  backoffMs: number;
}

/** What one attempt came to. */
export interface AttemptOutcome {
  attempt: DeliveryAttempt;
  ok: boolean;
  /** BLOCK_PRIVATE_ENDPOINTS refused the address: it is refused again on every retry. */
  refused: boolean;
}

export const SUBSCRIPTION_DELETED_NOTE = 'cancelled: the subscription was deleted before this delivery succeeded';

/** The latest instant a Date can hold (ms since epoch): a retry is never due later, so its time can always be shown. */
const LATEST_INSTANT_MS = 8.64e15;

/** A new pending delivery, due at `nowMs` on the account clock; `createdAtMs` on the process clock. */
export function newDelivery(
  input: NewDelivery,
  made: { deliveryId: string; nowMs: number; createdAtMs: number },
): DeliveryRecord {
  const { redeliveryOf, sentAsId, drill } = input;
  return {
    deliveryId: made.deliveryId,
    accountId: input.accountId,
    kind: input.kind,
    subscriptionId: input.subscriptionId,
    locationId: input.locationId,
    method: input.method ?? 'POST',
    target: input.target,
    payload: input.payload,
    state: 'pending',
    attempts: [],
    createdAt: new Date(made.nowMs).toISOString(),
    dueAtMs: made.nowMs,
    ...(redeliveryOf === undefined ? {} : { redeliveryOf }),
    ...(sentAsId === undefined ? {} : { sentAsId }),
    ...(drill === undefined ? {} : { drill }),
    ...(input.checkReceiverAfter ? { checkReceiverAfter: true } : {}),
    createdAtMs: made.createdAtMs,
  };
}

/** The same request as `original`, as a new delivery; with `sameDeliveryId`, sent as a duplicate of it (its X-Sandbox-Delivery-Id). */
export function redeliveryOf(
  original: DeepReadonly<DeliveryRecord>,
  options: { sameDeliveryId?: boolean; drill?: DeliveryDrill } = {},
): NewDelivery {
  return {
    accountId: original.accountId,
    kind: original.kind,
    subscriptionId: original.subscriptionId,
    locationId: original.locationId,
    method: original.method,
    target: original.target,
    payload: structuredClone(original.payload),
    redeliveryOf: original.deliveryId,
    ...(options.sameDeliveryId ? { sentAsId: original.sentAsId ?? original.deliveryId } : {}),
    drill: options.drill,
  };
}

/** How many attempts a delivery of `kind` gets: the receiver check is a diagnostic, with one attempt and no retries. */
export const attemptsAllowed = (kind: DeliveryKind, policy: RetryPolicy): number =>
  kind === 'receiver_check' ? 1 : policy.maxAttempts;

/** How long after its `failedAttempts`-th failed attempt the next one falls due: backoff, 2 x backoff, 4 x backoff, ... */
export const retryDelayMs = (failedAttempts: number, policy: RetryPolicy): number =>
  policy.backoffMs * 2 ** (failedAttempts - 1);

/**
 * The delivery once an attempt's outcome is recorded, at `nowMs` on the account clock (the
 * clock may have moved during the attempt: a retry counts from after it). A delivery no
 * longer pending (cancelled while the attempt was on its way) keeps the attempt, not a new
 * schedule. `record` is left as it was.
 */
export function afterAttempt(
  record: DeliveryRecord,
  outcome: AttemptOutcome,
  nowMs: number,
  policy: RetryPolicy,
): DeliveryRecord {
  const attempted = { ...record, attempts: [...record.attempts, outcome.attempt] };
  if (record.state !== 'pending') return attempted;
  if (outcome.ok) return endedDelivery(attempted, 'delivered');
  if (outcome.refused || attempted.attempts.length >= attemptsAllowed(record.kind, policy))
    return endedDelivery(attempted, 'failed');
  return {
    ...attempted,
    dueAtMs: Math.min(nowMs + retryDelayMs(attempted.attempts.length, policy), LATEST_INSTANT_MS),
  };
}

/** The delivery once its subscription is deleted: a pending one fails with the note; a finished one stays as it was. */
export function cancelled(record: DeliveryRecord, note = SUBSCRIPTION_DELETED_NOTE): DeliveryRecord {
  return record.state === 'pending' ? endedDelivery(record, 'failed', note) : record;
}
