import type { Router } from 'express';

import { operationRouter } from '../http/operation.js';
import { authOf, noteRequestFacts } from '../http/request-context.js';
import { findSubscription } from '../store/lookups.js';
import {
  confirmSubscriptionOp,
  createSubscriptionOp,
  deleteSubscriptionOp,
  getSubscriptionOp,
  listLocationSubscriptionsOp,
  listSubscriptionsOp,
  resendConfirmationOp,
} from './operations.js';
import { presentSubscription, subscriptionsPage } from './presenter.js';
import {
  confirmationTokenShown,
  confirmSubscription,
  createSubscription,
  deleteSubscription,
  resendConfirmation,
  type SubscriptionsDeps,
} from './service.js';

export function subscriptionsRouter(deps: SubscriptionsDeps): Router {
  const api = operationRouter('/v1');

  api.handle(createSubscriptionOp, async ({ params, body }, _req, res) => {
    const subscription = await createSubscription(deps, authOf(res), params.locationId, body().endpoint);
    noteRequestFacts(res, { subscriptionId: subscription.subscriptionId });
    res.json(presentSubscription(subscription));
  });

  api.handle(listLocationSubscriptionsOp, ({ params, query }, _req, res) => {
    const asked = query();
    res.json(subscriptionsPage(authOf(res).doc, { ...asked, locationId: params.locationId }));
  });

  api.handle(listSubscriptionsOp, ({ query }, _req, res) => {
    res.json(subscriptionsPage(authOf(res).doc, query()));
  });

  // The official Python client adds a slash before the query: /confirm/?confirmationToken=... (trailingSlash).
  api.handle(confirmSubscriptionOp, async ({ params, query }, _req, res) => {
    res.json(
      presentSubscription(
        await confirmSubscription(deps, authOf(res), params.subscriptionId, query().confirmationToken),
      ),
    );
  });

  api.handle(getSubscriptionOp, ({ params }, _req, res) => {
    res.json(presentSubscription(findSubscription(authOf(res).doc, params.subscriptionId)));
  });

  api.handle(deleteSubscriptionOp, async ({ params }, _req, res) => {
    // Production's DELETE has no documented body; the official Node client crashes on an empty 200, so we answer the deleted subscription.
    res.json(presentSubscription(await deleteSubscription(deps, authOf(res), params.subscriptionId)));
  });

  return api.done();
}

/** /sandbox routes of this feature. */
export function subscriptionsSandboxRouter(deps: SubscriptionsDeps): Router {
  const api = operationRouter('/sandbox');

  // A fresh confirmation token for a pending subscription, sent to the endpoint again. Where the
  // account may read it (confirmationTokenShown) it is returned here too, so a partner without a
  // reachable endpoint can still confirm; otherwise the answer says where it went.
  api.handle(resendConfirmationOp, async ({ params }, _req, res) => {
    const caller = authOf(res);
    const { subscriptionId } = params;
    const sent = await resendConfirmation(deps, caller, subscriptionId);
    if (confirmationTokenShown(deps, caller.accountId, sent.endpoint)) res.json({ subscriptionId, ...sent.message });
    else res.json({ subscriptionId, endpoint: sent.endpoint, deliveryId: sent.deliveryId });
  });

  return api.done();
}
