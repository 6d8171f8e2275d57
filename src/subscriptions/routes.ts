import { Router } from 'express';

import { accountNowMs } from '../clock/index.js';
import type { Clock } from '../core/clock.js';
import { AppError, conflict, invalidParameter, notFound } from '../core/errors.js';
import type { Ids } from '../core/ids.js';
import { pageOf, parsePaging } from '../http/pagination.js';
import { authOf } from '../http/request-context.js';
import { allowOnly } from '../http/routing.js';
import { publishAccountEvent } from '../live/index.js';
import type { AccountDoc, DeepReadonly, SubscriptionRecord } from '../store/data.js';
import { findLocation, findSubscription } from '../store/lookups.js';
import type { AccountTx, Store } from '../store/store.js';
import { SUBSCRIPTION_DELETED_NOTE, type Dispatcher } from '../webhooks/index.js';
import { checkConfirmationToken, confirmationUrl, issueConfirmationToken, readConfirmationToken } from './confirmation.js';
import { checkEndpoint, type EndpointPolicy, type RelayEndpointCheck } from './endpoint-policy.js';
import { presentSubscription } from './presenter.js';

const DEFAULT_SUBSCRIPTIONS_PER_PAGE = 50;

export interface SubscriptionsDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  dispatcher: Dispatcher;
  urls: { readonly publicUrl: string };
  config: { readonly confirmationTokenTtlSeconds: number; readonly endpointPolicy: EndpointPolicy; readonly blockPrivateEndpoints: boolean };
  /** Recognises the sandbox's relay endpoints (`water-sandbox listen`). */
  relays?: { classifyEndpoint(accountId: string, url: URL): 'own' | 'foreign' | null };
}

function parseEndpointBody(body: unknown, config: SubscriptionsDeps['config'], relay?: RelayEndpointCheck): string {
  if (body === undefined) {
    throw new AppError(415, 'unsupported_media_type', 'The request body must be JSON with Content-Type: application/json, e.g. {"endpoint": "https://example.com/hooks"}');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidParameter('body', 'The request body must be a JSON object such as {"endpoint": "https://example.com/hooks"}');
  }
  const unknown = Object.keys(body).filter((k) => k !== 'endpoint');
  if (unknown.length > 0) throw invalidParameter(unknown[0] ?? 'body', `A subscription takes only endpoint; remove ${unknown.map((k) => JSON.stringify(k)).join(', ')}`);
  return checkEndpoint((body as { endpoint?: unknown }).endpoint, config.endpointPolicy, config.blockPrivateEndpoints, relay);
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
): { confirmationUrl: string; confirmationToken: string } {
  const token = deps.ids.secret(24);
  const nowMs = accountNowMs(deps.clock, doc.clock);
  issueConfirmationToken(doc, { subscriptionId: subscription.subscriptionId, accountId: subscription.accountId, token, nowMs, ttlSeconds: deps.config.confirmationTokenTtlSeconds });
  const message = { confirmationUrl: confirmationUrl(deps.urls.publicUrl, subscription.subscriptionId, token), confirmationToken: token };
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
  return message;
}

export function subscriptionsRouter(deps: SubscriptionsDeps): Router {
  const router = Router({ strict: true });

  router.post('/locations/:locationId/subscriptions', async (req, res) => {
    const { accountId, doc } = authOf(res);
    const { locationId } = req.params;
    findLocation(doc, locationId);
    const relays = deps.relays;
    const endpoint = parseEndpointBody(req.body, deps.config, relays && ((url) => relays.classifyEndpoint(accountId, url)));
    const subscriptionId = deps.ids.uuid();
    // The subscription, its token and its confirmation are stored in one change, so a restart
    // never finds a subscription without its confirmation.
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
      const created: SubscriptionRecord = { subscriptionId, accountId, locationId, endpoint, status: 'pending', createdAt: new Date(accountNowMs(deps.clock, d.clock)).toISOString() };
      d.subscriptions.push(created);
      queueConfirmation(deps, d, tx, created, { checkReceiver: true });
      return created;
    });
    deps.dispatcher.kick(accountId);
    await publishAccountEvent(deps.store, accountId, { type: 'subscription', subscriptionId: subscription.subscriptionId, locationId, status: subscription.status });
    res.json(presentSubscription(subscription));
  });

  router.get('/locations/:locationId/subscriptions', (req, res) => {
    const { doc } = authOf(res);
    const paging = parsePaging(req.query, DEFAULT_SUBSCRIPTIONS_PER_PAGE);
    const location = findLocation(doc, req.params.locationId);
    const subscriptions = doc.subscriptions.filter((s) => s.locationId === location.locationId).map(presentSubscription);
    res.json(pageOf('subscriptions', subscriptions, paging));
  });
  allowOnly(router, '/locations/:locationId/subscriptions', ['GET', 'POST']);

  router.get('/subscriptions', (req, res) => {
    const { doc } = authOf(res);
    const paging = parsePaging(req.query, DEFAULT_SUBSCRIPTIONS_PER_PAGE);
    res.json(pageOf('subscriptions', doc.subscriptions.map(presentSubscription), paging));
  });
  allowOnly(router, '/subscriptions', ['GET']);

  // The official Python client adds a slash before the query: /confirm/?confirmationToken=...
  router.get('/subscriptions/:subscriptionId/confirm{/}', async (req, res) => {
    const { accountId, doc } = authOf(res);
    const { subscriptionId } = req.params;
    findSubscription(doc, subscriptionId);
    const token = readConfirmationToken(req.query);
    const confirmed = await deps.store.accounts.update(accountId, (d) => {
      const nowMs = accountNowMs(deps.clock, d.clock);
      checkConfirmationToken(d, subscriptionId, token, nowMs);
      const record = d.confirmationTokens.find((t) => t.token === token && t.subscriptionId === subscriptionId);
      const subscription = d.subscriptions.find((s) => s.subscriptionId === subscriptionId);
      if (!record || !subscription) return null;
      record.usedAt = new Date(nowMs).toISOString();
      subscription.status = 'confirmed';
      return presentSubscription(subscription);
    });
    if (!confirmed) throw notFound(`No subscription ${JSON.stringify(subscriptionId)} in this account`);
    await publishAccountEvent(deps.store, accountId, { type: 'subscription', subscriptionId, locationId: confirmed.locationId, status: 'confirmed' });
    res.json(confirmed);
  });
  allowOnly(router, '/subscriptions/:subscriptionId/confirm{/}', ['GET']);

  router.get('/subscriptions/:subscriptionId', (req, res) => {
    res.json(presentSubscription(findSubscription(authOf(res).doc, req.params.subscriptionId)));
  });

  router.delete('/subscriptions/:subscriptionId', async (req, res) => {
    const { accountId, doc } = authOf(res);
    const { subscriptionId } = req.params;
    findSubscription(doc, subscriptionId);
    const deleted = await deps.store.accounts.update(accountId, (d) => {
      const subscription = findSubscription(d, subscriptionId);
      d.subscriptions = d.subscriptions.filter((s) => s.subscriptionId !== subscriptionId);
      d.confirmationTokens = d.confirmationTokens.filter((t) => t.subscriptionId !== subscriptionId);
      return presentSubscription(subscription);
    });
    // Not in the same change, so the delivery log is not rewritten with the account; the
    // dispatcher also cancels any it meets whose subscription is gone.
    await deps.store.deliveries.cancelPending(accountId, subscriptionId, SUBSCRIPTION_DELETED_NOTE);
    await publishAccountEvent(deps.store, accountId, { type: 'subscription', subscriptionId, locationId: deleted.locationId, status: 'deleted' });
    // Production's DELETE has no documented body; the official Node client crashes on an empty 200, so we answer the deleted subscription.
    res.json(deleted);
  });
  allowOnly(router, '/subscriptions/:subscriptionId', ['GET', 'DELETE']);

  return router;
}

/** /sandbox routes of this feature. */
export function subscriptionsSandboxRouter(deps: SubscriptionsDeps): Router {
  const router = Router({ strict: true });

  // A fresh confirmation token for a pending subscription: sent to the endpoint again, and returned here
  // so a partner without a reachable endpoint can still confirm.
  router.post('/subscriptions/:subscriptionId/confirmation', async (req, res) => {
    const { accountId, doc } = authOf(res);
    const { subscriptionId } = req.params;
    findSubscription(doc, subscriptionId);
    const sent = await deps.store.accounts.update(accountId, (d, tx) => {
      const subscription = findSubscription(d, subscriptionId);
      if (subscription.status === 'confirmed') throw conflict('already_confirmed', `Subscription ${subscription.subscriptionId} is already confirmed`);
      return queueConfirmation(deps, d, tx, subscription, { checkReceiver: false });
    });
    deps.dispatcher.kick(accountId);
    res.json({ subscriptionId, ...sent });
  });
  allowOnly(router, '/subscriptions/:subscriptionId/confirmation', ['POST']);

  return router;
}
