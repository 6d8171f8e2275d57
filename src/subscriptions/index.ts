/** What other features use of subscriptions. */
export { type EndpointPolicy } from './endpoint-policy.js';
export { subscriptionsOperations } from './operations.js';
export { presentSubscription } from './presenter.js';
export { subscriptionsRouter, subscriptionsSandboxRouter } from './routes.js';
export { confirmationTokenShown, type SubscriptionsDeps } from './service.js';
export { Subscription, type PublicSubscription } from './schemas.js';
