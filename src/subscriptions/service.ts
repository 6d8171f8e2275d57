import { accountNowMs } from '../clock/index.js';
import type { Clock } from '../core/clock.js';
import { capReached, conflict, notFound } from '../core/errors.js';
import type { Ids } from '../core/ids.js';
import type { Logger } from '../core/logger.js';
import type { Metrics } from '../http/metrics.js';
import { publishAccountEvent } from '../live/index.js';
import type { AccountDoc, DeepReadonly, SubscriptionRecord } from '../store/data.js';
import { findLocation, findSubscription } from '../store/lookups.js';
import type { AccountTx, Store } from '../store/store.js';
import { SUBSCRIPTION_DELETED_NOTE, type AddressGuard, type Dispatcher } from '../webhooks/index.js';
import { checkConfirmationToken, confirmationUrl, issueConfirmationToken } from './confirmation.js';
import {
  checkEndpoint,
  EndpointRefusedError,
  type EndpointPolicy,
  type RelayEndpointCheck,
} from './endpoint-policy.js';

export interface SubscriptionsDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  dispatcher: Dispatcher;
  urls: { readonly publicUrl: string };
  config: {
    /** PUBLIC_URL names a host that is not loopback: confirmation tokens reach endpoints only. */
    readonly hosted: boolean;
    readonly confirmationTokenTtlSeconds: number;
    readonly endpointPolicy: EndpointPolicy;
    readonly blockPrivateEndpoints: boolean;
    readonly limits: { readonly subscriptionsPerLocation: number };
  };
  /** Recognises the sandbox's relay endpoints (`water-sandbox listen`). */
  relays?: { classifyEndpoint(accountId: string, url: URL): 'own' | 'foreign' | null };
  /** Judges the address an endpoint's host resolves to (BLOCK_PRIVATE_ENDPOINTS). */
  addressGuard: Pick<AddressGuard, 'checkHost'>;
  logger: Logger;
  metrics: Pick<Metrics, 'countRefusedEndpoint'>;
}

/** The calling account: its id and the document read for this request (for a 404 before any change). */
export interface Caller {
  accountId: string;
  doc: DeepReadonly<AccountDoc>;
}

/** The confirmation POST just queued: its delivery and what it carries. */
export interface QueuedConfirmation {
  deliveryId: string;
  message: { confirmationUrl: string; confirmationToken: string };
}

/** The endpoint as the rules accept it; a refusal is counted and logged for the operator before the 400. */
async function acceptedEndpoint(deps: SubscriptionsDeps, accountId: string, endpoint: unknown): Promise<string> {
  const relays = deps.relays;
  const relayCheck: RelayEndpointCheck | undefined = relays && ((url) => relays.classifyEndpoint(accountId, url));
  const rules = {
    policy: deps.config.endpointPolicy,
    blockPrivate: deps.config.blockPrivateEndpoints,
    addresses: deps.addressGuard,
  };
  try {
    return await checkEndpoint(endpoint, rules, relayCheck);
  } catch (error) {
    if (error instanceof EndpointRefusedError) {
      deps.metrics.countRefusedEndpoint({ ...error.refusal, at: 'subscription' });
      deps.logger.warn('subscription endpoint refused', { accountId, ...error.refusal, reason: error.message });
    }
    throw error;
  }
}

/**
 * Within one store change: a fresh confirmation token (replacing unused ones) and the
 * confirmation POST to the endpoint, stored with the change. The caller kicks the dispatcher.
 */
function queueConfirmation(
  deps: SubscriptionsDeps,
  doc: AccountDoc,
  tx: AccountTx,
  subscription: DeepReadonly<SubscriptionRecord>,
  options: { checkReceiver: boolean },
): QueuedConfirmation {
  const token = deps.ids.secret(24);
  const nowMs = accountNowMs(deps.clock, doc.clock);
  issueConfirmationToken(doc, {
    subscriptionId: subscription.subscriptionId,
    accountId: subscription.accountId,
    token,
    nowMs,
    ttlSeconds: deps.config.confirmationTokenTtlSeconds,
  });
  const message = {
    confirmationUrl: confirmationUrl(deps.urls.publicUrl, subscription.subscriptionId, token),
    confirmationToken: token,
  };
  const delivery = deps.dispatcher.build(
    {
      accountId: subscription.accountId,
      kind: 'confirmation',
      subscriptionId: subscription.subscriptionId,
      locationId: subscription.locationId,
      target: subscription.endpoint,
      payload: message,
      checkReceiverAfter: options.checkReceiver,
    },
    nowMs,
  );
  tx.addDeliveries([delivery]);
  return { deliveryId: delivery.deliveryId, message };
}

/**
 * Whether the account may read the confirmation token of a subscription of `endpoint` (in the
 * answer of a resend, in its delivery log), rather than only the endpoint receiving it: on a
 * local sandbox, and for the account's own relay endpoints (which deliver to the account's own
 * `listen`). On a hosted sandbox the token reaching the endpoint is what proves the endpoint
 * asked for the traffic, so the account never sees it.
 */
export function confirmationTokenShown(
  deps: Pick<SubscriptionsDeps, 'config' | 'relays'>,
  accountId: string,
  endpoint: string,
): boolean {
  if (!deps.config.hosted) return true;
  return URL.canParse(endpoint) && deps.relays?.classifyEndpoint(accountId, new URL(endpoint)) === 'own';
}

/** Tells the account's live stream (the dashboard) that a subscription was made, confirmed or deleted. */
const announce = (
  deps: SubscriptionsDeps,
  accountId: string,
  subscription: DeepReadonly<SubscriptionRecord>,
  status: 'pending' | 'confirmed' | 'deleted',
): Promise<void> =>
  publishAccountEvent(deps.store, accountId, {
    type: 'subscription',
    subscriptionId: subscription.subscriptionId,
    locationId: subscription.locationId,
    status,
  });

/**
 * Subscribes `endpoint` (as the partner sent it: checked here) to a location's alerts, pending
 * until confirmed. The subscription, its token and its confirmation are stored in one change, so
 * a restart never finds a subscription without its confirmation.
 */
export async function createSubscription(
  deps: SubscriptionsDeps,
  { accountId, doc }: Caller,
  locationId: string,
  endpointGiven: unknown,
): Promise<DeepReadonly<SubscriptionRecord>> {
  findLocation(doc, locationId);
  const endpoint = await acceptedEndpoint(deps, accountId, endpointGiven);
  const subscriptionId = deps.ids.uuid();
  const subscription = await deps.store.accounts.update(accountId, (d, tx) => {
    findLocation(d, locationId);
    // SANDBOX: production does not document a second subscription of one endpoint to one location.
    // The sandbox answers with the existing one rather than a duplicate that would receive every
    // alert twice; a pending one gets a fresh confirmation, as the partner evidently lost the first.
    const existing = d.subscriptions.find((s) => s.locationId === locationId && s.endpoint === endpoint);
    if (existing) {
      if (existing.status === 'pending') queueConfirmation(deps, d, tx, existing, { checkReceiver: false });
      return existing;
    }
    // SANDBOX: a hosted sandbox caps what one partner's location fans out to (MAX_SUBSCRIPTIONS_PER_LOCATION); production documents no cap.
    const cap = deps.config.limits.subscriptionsPerLocation;
    const held = d.subscriptions.filter((s) => s.locationId === locationId).length;
    if (cap > 0 && held >= cap) {
      throw capReached(
        'MAX_SUBSCRIPTIONS_PER_LOCATION',
        `This location has ${held} subscriptions, the most this sandbox allows (MAX_SUBSCRIPTIONS_PER_LOCATION=${cap}); delete one (DELETE /v1/subscriptions/{subscriptionId}) before adding another`,
      );
    }
    const created: SubscriptionRecord = {
      subscriptionId,
      accountId,
      locationId,
      endpoint,
      status: 'pending',
      createdAt: new Date(accountNowMs(deps.clock, d.clock)).toISOString(),
    };
    d.subscriptions.push(created);
    queueConfirmation(deps, d, tx, created, { checkReceiver: true });
    return created;
  });
  deps.dispatcher.kick(accountId);
  await announce(deps, accountId, subscription, subscription.status);
  return subscription;
}

/** Confirms a subscription with its token (single use, before it expires): a 400 saying why otherwise. */
export async function confirmSubscription(
  deps: SubscriptionsDeps,
  { accountId, doc }: Caller,
  subscriptionId: string,
  token: string,
): Promise<DeepReadonly<SubscriptionRecord>> {
  findSubscription(doc, subscriptionId);
  const confirmed = await deps.store.accounts.update(accountId, (d) => {
    const nowMs = accountNowMs(deps.clock, d.clock);
    checkConfirmationToken(d, subscriptionId, token, nowMs);
    const record = d.confirmationTokens.find((t) => t.token === token && t.subscriptionId === subscriptionId);
    const subscription = d.subscriptions.find((s) => s.subscriptionId === subscriptionId);
    if (!record || !subscription) return null;
    record.usedAt = new Date(nowMs).toISOString();
    subscription.status = 'confirmed';
    return { ...subscription };
  });
  if (!confirmed) throw notFound(`No subscription ${JSON.stringify(subscriptionId)} in this account`);
  await announce(deps, accountId, confirmed, 'confirmed');
  return confirmed;
}

/** Deletes a subscription with its tokens, and cancels its pending deliveries. */
export async function deleteSubscription(
  deps: SubscriptionsDeps,
  { accountId, doc }: Caller,
  subscriptionId: string,
): Promise<DeepReadonly<SubscriptionRecord>> {
  findSubscription(doc, subscriptionId);
  const deleted = await deps.store.accounts.update(accountId, (d) => {
    const subscription = findSubscription(d, subscriptionId);
    d.subscriptions = d.subscriptions.filter((s) => s.subscriptionId !== subscriptionId);
    d.confirmationTokens = d.confirmationTokens.filter((t) => t.subscriptionId !== subscriptionId);
    return { ...subscription };
  });
  // Not in the same change, so the delivery log is not rewritten with the account; the
  // dispatcher also cancels any it meets whose subscription is gone.
  await deps.store.deliveries.cancelPending(accountId, subscriptionId, SUBSCRIPTION_DELETED_NOTE);
  await announce(deps, accountId, deleted, 'deleted');
  return deleted;
}

/** A fresh confirmation token for a pending subscription, sent to its endpoint again (a 409 once confirmed). */
export async function resendConfirmation(
  deps: SubscriptionsDeps,
  { accountId, doc }: Caller,
  subscriptionId: string,
): Promise<QueuedConfirmation & { endpoint: string }> {
  findSubscription(doc, subscriptionId);
  const sent = await deps.store.accounts.update(accountId, (d, tx) => {
    const subscription = findSubscription(d, subscriptionId);
    if (subscription.status === 'confirmed')
      throw conflict('already_confirmed', `Subscription ${subscription.subscriptionId} is already confirmed`);
    return {
      endpoint: subscription.endpoint,
      ...queueConfirmation(deps, d, tx, subscription, { checkReceiver: false }),
    };
  });
  deps.dispatcher.kick(accountId);
  return sent;
}
