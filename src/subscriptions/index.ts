/** What other features use of subscriptions. */
export { type EndpointPolicy } from './endpoint-policy.js';
export { subscriptionsOperations } from './operations.js';
export { presentSubscription } from './presenter.js';
export { confirmationTokenShown, subscriptionsRouter, subscriptionsSandboxRouter, type SubscriptionsDeps } from './routes.js';
export { Subscription, type PublicSubscription } from './schemas.js';
