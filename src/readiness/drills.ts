import { alertNotification } from '../alerts/index.js';
import { expireAccessTokens, tokenClocks } from '../auth/index.js';
import { accountNowMs } from '../clock/index.js';
import type { Clock } from '../core/clock.js';
import { conflict, present } from '../core/errors.js';
import type { Ids } from '../core/ids.js';
import { queueFault } from '../faults/index.js';
import type { AccountDoc, AlertRecord, DeepReadonly, SubscriptionRecord } from '../store/data.js';
import type { Store } from '../store/store.js';
import { redeliveryOf, type Dispatcher, type NewDelivery } from '../webhooks/index.js';

/** The drills of docs/readiness.md#drills: each provokes a rare case through the sandbox's existing controls. */
export const DRILLS = ['expire-tokens', 'rate-limit', 'server-errors', 'duplicate-delivery', 'out-of-order'] as const;
export type DrillName = (typeof DRILLS)[number];

export interface DrillsDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  dispatcher: Dispatcher;
  config: { readonly limits: { readonly faults: number } };
}

/** What a drill set up. */
export interface DrillOutcome {
  drill: DrillName;
  effect: string;
  faultIds: string[];
  deliveryIds: string[];
  expiredTokens: number;
}

/** The /v1 requests a rate-limit or server-errors drill answers, and the Retry-After of the 429s. */
export const DRILL_REQUESTS = 3;
export const DRILL_RETRY_AFTER_S = 2;

const outcome = (
  drill: DrillName,
  effect: string,
  parts: Partial<Omit<DrillOutcome, 'drill' | 'effect'>> = {},
): DrillOutcome => ({
  drill,
  effect,
  faultIds: parts.faultIds ?? [],
  deliveryIds: parts.deliveryIds ?? [],
  expiredTokens: parts.expiredTokens ?? 0,
});

async function expireTokens(deps: DrillsDeps, accountId: string): Promise<DrillOutcome> {
  // The dashboard's own session is not the integration's: it stays signed in.
  const expired = await deps.store.accounts.update(accountId, (d) =>
    expireAccessTokens(d, tokenClocks(deps.clock, d.clock), (t) => t.internal !== true),
  );
  if (expired === 0) {
    throw conflict(
      'no_access_token',
      'The account has no live access token to expire: sign a user in through your OAuth client (/login, then /oauth2/token) first',
    );
  }
  return outcome(
    'expire-tokens',
    `${expired} access token${expired === 1 ? '' : 's'} of the account expired now; the next /v1 call with one answers 403`,
    { expiredTokens: expired },
  );
}

async function faultDrill(
  deps: DrillsDeps,
  accountId: string,
  drill: 'rate-limit' | 'server-errors',
): Promise<DrillOutcome> {
  const faultId = deps.ids.uuid();
  const limited = drill === 'rate-limit';
  const fault = limited
    ? {
        status: 429,
        retryAfter: DRILL_RETRY_AFTER_S,
        body: {
          error: 'rate_limited',
          message: `Too many requests (readiness drill rate-limit); retry after ${DRILL_RETRY_AFTER_S} s`,
        },
      }
    : {
        status: 503,
        body: {
          error: 'service_unavailable',
          message: 'The service is unavailable (readiness drill server-errors); retry later',
        },
      };
  // Put first, so they answer the very next /v1 requests whatever else is queued.
  await deps.store.accounts.update(accountId, (d) =>
    queueFault(
      d,
      { ...fault, path: '/v1/*', times: DRILL_REQUESTS },
      { faultId, nowMs: accountNowMs(deps.clock, d.clock), maxFaults: deps.config.limits.faults, first: true },
    ),
  );
  const effect = limited
    ? `the next ${DRILL_REQUESTS} /v1 requests answer 429 with Retry-After: ${DRILL_RETRY_AFTER_S}`
    : `the next ${DRILL_REQUESTS} /v1 requests answer 503`;
  return outcome(drill, effect, { faultIds: [faultId] });
}

async function duplicateDelivery(
  deps: DrillsDeps,
  accountId: string,
  doc: DeepReadonly<AccountDoc>,
): Promise<DrillOutcome> {
  const live = new Set(doc.subscriptions.map((s) => s.subscriptionId));
  const { items } = await deps.store.deliveries.list(accountId, {
    kind: 'alert',
    state: 'delivered',
    offset: 0,
    limit: 100,
  });
  // The newest notification itself delivered, not a drill's, whose subscription still receives alerts.
  const latest = items.find(
    (d) => d.sentAsId === undefined && d.drill === undefined && d.subscriptionId !== null && live.has(d.subscriptionId),
  );
  if (!latest) {
    throw conflict(
      'no_delivered_alert',
      'No alert notification has been delivered to a subscription of the account yet: start an alert at a location with a confirmed subscription (POST /sandbox/locations/{locationId}/alerts), then run this drill',
    );
  }
  const [copy] = await deps.dispatcher.enqueue(accountId, [
    redeliveryOf(latest, { sameDeliveryId: true, drill: 'duplicate-delivery' }),
  ]);
  return outcome(
    'duplicate-delivery',
    `alert notification ${latest.deliveryId} sent again to ${latest.target} with the same X-Sandbox-Delivery-Id`,
    { deliveryIds: [present(copy, 'the enqueued copy').deliveryId] },
  );
}

/** An alert end of an alert nobody heard start: a slow leak of the last quarter hour at the location's first device. */
function orphanEnd(
  deps: DrillsDeps,
  doc: DeepReadonly<AccountDoc>,
  subscription: DeepReadonly<SubscriptionRecord>,
  nowMs: number,
): NewDelivery {
  const location = doc.locations.find((l) => l.locationId === subscription.locationId);
  const nowS = Math.floor(nowMs / 1000);
  const alert: AlertRecord = {
    alertId: deps.ids.uuid(),
    accountId: doc.account.accountId,
    locationId: subscription.locationId,
    deviceId: location?.devices[0]?.deviceId ?? subscription.locationId,
    type: 'lowLeak',
    active: false,
    startTime: nowS - 900,
    detectedTime: nowS - 600,
    stopTime: nowS,
    peakValue: 0.4,
    peakStatus: null,
    flowGpm: 0,
  };
  return {
    accountId: doc.account.accountId,
    kind: 'alert',
    subscriptionId: subscription.subscriptionId,
    locationId: subscription.locationId,
    target: subscription.endpoint,
    payload: alertNotification(alert, subscription.subscriptionId),
    drill: 'out-of-order',
  };
}

async function outOfOrder(deps: DrillsDeps, accountId: string, doc: DeepReadonly<AccountDoc>): Promise<DrillOutcome> {
  const confirmed = doc.subscriptions.filter((s) => s.status === 'confirmed');
  if (confirmed.length === 0) {
    throw conflict(
      'no_confirmed_subscription',
      'The account has no confirmed subscription to send an alert end to: subscribe an endpoint and confirm it first',
    );
  }
  const nowMs = accountNowMs(deps.clock, doc.clock);
  // SANDBOX: production would not end an alert it never started; the drill does, because receivers meet it when a start is lost.
  const records = await deps.dispatcher.enqueue(
    accountId,
    confirmed.map((s) => orphanEnd(deps, doc, s, nowMs)),
  );
  return outcome(
    'out-of-order',
    `${records.length} confirmed subscription${records.length === 1 ? '' : 's'} sent an alert end (active: false) of an alert never started`,
    { deliveryIds: records.map((r) => r.deliveryId) },
  );
}

/** Runs a drill for the account; 409 when it needs something the account does not have yet. */
export async function runDrill(
  deps: DrillsDeps,
  accountId: string,
  doc: DeepReadonly<AccountDoc>,
  drill: DrillName,
): Promise<DrillOutcome> {
  switch (drill) {
    case 'expire-tokens':
      return expireTokens(deps, accountId);
    case 'rate-limit':
    case 'server-errors':
      return faultDrill(deps, accountId, drill);
    case 'duplicate-delivery':
      return duplicateDelivery(deps, accountId, doc);
    case 'out-of-order':
      return outOfOrder(deps, accountId, doc);
  }
}
