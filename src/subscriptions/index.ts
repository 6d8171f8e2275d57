/** What other features use of subscriptions. */
export { type EndpointPolicy } from './endpoint-policy.js';
export {
  confirmSubscriptionOp,
  createSubscriptionOp,
  deleteSubscriptionOp,
  listSubscriptionsOp,
  subscriptionsOperations,
} from './operations.js';
export { presentSubscription, subscriptionsPage } from './presenter.js';
export { subscriptionsRouter, subscriptionsSandboxRouter } from './routes.js';
export {
  confirmationTokenShown,
  confirmSubscription,
  createSubscription,
  deleteSubscription,
  type SubscriptionsDeps,
} from './service.js';
export { Subscription, type PublicSubscription } from './schemas.js';
