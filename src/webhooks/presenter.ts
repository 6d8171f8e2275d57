import type { DeepReadonly, DeliveryRecord } from '../store/data.js';
import { deliveryDueMs } from '../store/derived.js';
import { ATTEMPT_HEADER, DELIVERY_ID_HEADER } from './dispatcher.js';
import type { DeliveryView } from './operations.js';
import { headersOf, HIDDEN, hideSecrets } from './sender.js';

/** What the log shows of a confirmation token the account may not read (a hosted sandbox: docs/hosting.md). */
export const HIDDEN_TOKEN = HIDDEN;

/** The confirmation message with its token hidden: the shape sent, without what only the endpoint may know. */
function withoutToken(payload: unknown): unknown {
  const message = payload as { confirmationUrl?: unknown; confirmationToken?: unknown } | null;
  if (typeof message?.confirmationToken !== 'string' || typeof message.confirmationUrl !== 'string')
    return structuredClone(payload);
  const url = message.confirmationUrl.replace(/([?&]confirmationToken=)[^&#]*/, `$1${HIDDEN_TOKEN}`);
  return { ...message, confirmationUrl: url, confirmationToken: HIDDEN_TOKEN };
}

/** When the next attempt falls due on the account clock, as an instant; null once the delivery is over. */
function nextAttemptAt(x: DeepReadonly<DeliveryRecord>): string | null {
  const dueAtMs = deliveryDueMs(x);
  return dueAtMs === null ? null : new Date(dueAtMs).toISOString();
}

/** A delivery as the log shows it; `hideToken`: a confirmation whose token is for its endpoint only. */
export function presentDelivery(x: DeepReadonly<DeliveryRecord>, options: { hideToken?: boolean } = {}): DeliveryView {
  const hide = options.hideToken === true && x.kind === 'confirmation';
  // Answers are stored with the token hidden; this also covers those recorded before they were.
  const token = hide ? (x.payload as { confirmationToken?: unknown } | null)?.confirmationToken : undefined;
  const secrets = typeof token === 'string' ? [token] : [];
  return {
    deliveryId: x.deliveryId,
    kind: x.kind,
    subscriptionId: x.subscriptionId,
    locationId: x.locationId,
    method: x.method,
    target: x.target,
    requestHeaders: headersOf({
      body: x.method === 'POST' ? x.payload : undefined,
      headers: { [DELIVERY_ID_HEADER]: x.sentAsId ?? x.deliveryId, [ATTEMPT_HEADER]: '1' },
    }),
    payload: hide ? withoutToken(x.payload) : structuredClone(x.payload),
    state: x.state,
    attempts: x.attempts.map((a) => ({
      ...a,
      error: a.error === null ? null : hideSecrets(a.error, secrets),
      responseExcerpt: a.responseExcerpt === null ? null : hideSecrets(a.responseExcerpt, secrets),
      warnings: [...a.warnings],
    })),
    createdAt: x.createdAt,
    nextAttemptAt: nextAttemptAt(x),
    redeliveryOf: x.redeliveryOf ?? null,
    drill: x.drill ?? null,
    note: x.note ?? null,
  };
}
