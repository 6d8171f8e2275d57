import { Router } from 'express';

import { AppError, conflict, invalidParameter, notFound } from '../core/errors.js';
import type { Deps } from '../deps.js';
import { pageOf, parsePaging } from '../http/pagination.js';
import { authOf } from '../http/request-context.js';
import { allowOnly } from '../http/routing.js';
import { findOwnLocation } from '../locations/lookup.js';
import type { Data, DeepReadonly, SubscriptionRecord } from '../store/data.js';
import { cancelPendingDeliveries } from '../webhooks/log.js';
import { checkConfirmationToken, confirmationUrl, issueConfirmationToken, readConfirmationToken } from './confirmation.js';
import { checkEndpoint } from './endpoint-policy.js';
import { presentSubscription } from './presenter.js';

const DEFAULT_SUBSCRIPTIONS_PER_PAGE = 50;

function findOwnSubscription(data: DeepReadonly<Data>, accountId: string, subscriptionId: string): DeepReadonly<SubscriptionRecord> {
  const subscription = data.subscriptions.find((s) => s.subscriptionId === subscriptionId && s.accountId === accountId);
  if (!subscription) throw notFound(`No subscription ${JSON.stringify(subscriptionId)} in this account`);
  return subscription;
}

function parseEndpointBody(body: unknown, deps: Deps): string {
  if (body === undefined) {
    throw new AppError(415, 'unsupported_media_type', 'The request body must be JSON with Content-Type: application/json, e.g. {"endpoint": "https://example.com/hooks"}');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidParameter('body', 'The request body must be a JSON object such as {"endpoint": "https://example.com/hooks"}');
  }
  const unknown = Object.keys(body).filter((k) => k !== 'endpoint');
  if (unknown.length > 0) throw invalidParameter(unknown[0] ?? 'body', `A subscription takes only endpoint; remove ${unknown.map((k) => JSON.stringify(k)).join(', ')}`);
  return checkEndpoint((body as { endpoint?: unknown }).endpoint, deps.config.endpointPolicy, deps.config.blockPrivateEndpoints);
}

/**
 * Within one store change: a fresh confirmation token (replacing unused ones) and the
 * confirmation POST to the endpoint, queued. The caller kicks the dispatcher after the write.
 */
function queueConfirmation(
  deps: Deps,
  data: Data,
  subscription: DeepReadonly<SubscriptionRecord>,
): { confirmationUrl: string; confirmationToken: string; deliveryId: string } {
  const token = deps.ids.secret(24);
  issueConfirmationToken(data, {
    subscriptionId: subscription.subscriptionId,
    accountId: subscription.accountId,
    token,
    nowMs: deps.clocks.now(subscription.accountId).getTime(),
    ttlSeconds: deps.config.confirmationTokenTtlSeconds,
  });
  const message = { confirmationUrl: confirmationUrl(deps.urls.publicUrl, subscription.subscriptionId, token), confirmationToken: token };
  const delivery = deps.dispatcher.build({
    accountId: subscription.accountId,
    kind: 'confirmation',
    subscriptionId: subscription.subscriptionId,
    locationId: subscription.locationId,
    target: subscription.endpoint,
    payload: message,
  });
  data.deliveries.push(delivery);
  return { ...message, deliveryId: delivery.deliveryId };
}

export function subscriptionsRouter(deps: Deps): Router {
  const router = Router({ strict: true });

  router.post('/locations/:locationId/subscriptions', async (req, res) => {
    const { accountId } = authOf(res);
    const { locationId } = req.params;
    deps.store.read((d) => findOwnLocation(d, accountId, locationId));
    const endpoint = parseEndpointBody(req.body, deps);
    const subscription: SubscriptionRecord = {
      subscriptionId: deps.ids.uuid(),
      accountId,
      locationId,
      endpoint,
      status: 'pending',
      createdAt: deps.clocks.now(accountId).toISOString(),
    };
    // The subscription, its token and both outgoing calls are stored in one change, so a restart
    // never finds a subscription without its confirmation.
    await deps.store.write((d) => {
      d.subscriptions.push(subscription);
      const { deliveryId } = queueConfirmation(deps, d, subscription);
      // SANDBOX: production requires the endpoint to answer GET as well as POST with JSON; the sandbox checks
      // it once the confirmation POST has had its first attempt, and records the outcome in the delivery log.
      d.deliveries.push(
        deps.dispatcher.build({
          accountId,
          kind: 'receiver_check',
          subscriptionId: subscription.subscriptionId,
          locationId,
          method: 'GET',
          target: endpoint,
          payload: null,
          afterDeliveryId: deliveryId,
        }),
      );
    });
    deps.dispatcher.kick();
    res.json(presentSubscription(subscription));
  });

  router.get('/locations/:locationId/subscriptions', (req, res) => {
    const { accountId } = authOf(res);
    const paging = parsePaging(req.query, DEFAULT_SUBSCRIPTIONS_PER_PAGE);
    const subscriptions = deps.store.read((d) => {
      const location = findOwnLocation(d, accountId, req.params.locationId);
      return d.subscriptions.filter((s) => s.locationId === location.locationId).map(presentSubscription);
    });
    res.json(pageOf('subscriptions', subscriptions, paging));
  });
  allowOnly(router, '/locations/:locationId/subscriptions', ['GET', 'POST']);

  router.get('/subscriptions', (req, res) => {
    const { accountId } = authOf(res);
    const paging = parsePaging(req.query, DEFAULT_SUBSCRIPTIONS_PER_PAGE);
    const subscriptions = deps.store.read((d) => d.subscriptions.filter((s) => s.accountId === accountId).map(presentSubscription));
    res.json(pageOf('subscriptions', subscriptions, paging));
  });
  allowOnly(router, '/subscriptions', ['GET']);

  // The official Python client adds a slash before the query: /confirm/?confirmationToken=...
  router.get('/subscriptions/:subscriptionId/confirm{/}', async (req, res) => {
    const { accountId } = authOf(res);
    const { subscriptionId } = req.params;
    deps.store.read((d) => findOwnSubscription(d, accountId, subscriptionId));
    const token = readConfirmationToken(req.query);
    const nowMs = deps.clocks.now(accountId).getTime();
    deps.store.read((d) => checkConfirmationToken(d, subscriptionId, token, nowMs));
    const confirmed = await deps.store.write((d) => {
      const record = d.confirmationTokens.find((t) => t.token === token && t.subscriptionId === subscriptionId);
      const subscription = d.subscriptions.find((s) => s.subscriptionId === subscriptionId);
      if (!record || !subscription) return null;
      record.usedAt = new Date(nowMs).toISOString();
      subscription.status = 'confirmed';
      return presentSubscription(subscription);
    });
    if (!confirmed) throw notFound(`No subscription ${JSON.stringify(subscriptionId)} in this account`);
    res.json(confirmed);
  });
  allowOnly(router, '/subscriptions/:subscriptionId/confirm{/}', ['GET']);

  router.get('/subscriptions/:subscriptionId', (req, res) => {
    const { accountId } = authOf(res);
    res.json(presentSubscription(deps.store.read((d) => findOwnSubscription(d, accountId, req.params.subscriptionId))));
  });

  router.delete('/subscriptions/:subscriptionId', async (req, res) => {
    const { accountId } = authOf(res);
    const { subscriptionId } = req.params;
    const subscription = presentSubscription(deps.store.read((d) => findOwnSubscription(d, accountId, subscriptionId)));
    await deps.store.write((d) => {
      d.subscriptions = d.subscriptions.filter((s) => s.subscriptionId !== subscriptionId);
      d.confirmationTokens = d.confirmationTokens.filter((t) => t.subscriptionId !== subscriptionId);
      cancelPendingDeliveries(d, subscriptionId, 'cancelled: the subscription was deleted before this delivery succeeded');
    });
    // Production's DELETE has no documented body; the official Node client crashes on an empty 200, so we answer the deleted subscription.
    res.json(subscription);
  });
  allowOnly(router, '/subscriptions/:subscriptionId', ['GET', 'DELETE']);

  return router;
}

/** /sandbox routes of this feature. */
export function subscriptionsSandboxRouter(deps: Deps): Router {
  const router = Router({ strict: true });

  // A fresh confirmation token for a pending subscription: sent to the endpoint again, and returned here
  // so a partner without a reachable endpoint can still confirm.
  router.post('/subscriptions/:subscriptionId/confirmation', async (req, res) => {
    const { accountId } = authOf(res);
    const subscription = deps.store.read((d) => findOwnSubscription(d, accountId, req.params.subscriptionId));
    if (subscription.status === 'confirmed') throw conflict('already_confirmed', `Subscription ${subscription.subscriptionId} is already confirmed`);
    const sent = await deps.store.write((d) => queueConfirmation(deps, d, subscription));
    deps.dispatcher.kick();
    res.json({ subscriptionId: subscription.subscriptionId, ...sent });
  });
  allowOnly(router, '/subscriptions/:subscriptionId/confirmation', ['POST']);

  return router;
}
