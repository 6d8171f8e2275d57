/** What other features use of subscriptions. */
export { checkEndpoint, type EndpointPolicy } from './endpoint-policy.js';
export { presentSubscription, type PublicSubscription } from './presenter.js';
export { subscriptionsRouter, subscriptionsSandboxRouter, type SubscriptionsDeps } from './routes.js';
