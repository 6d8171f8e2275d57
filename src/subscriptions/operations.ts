import { DEMO } from '../http/demo-examples.js';
import { operationsTagged } from '../http/operation.js';
import { examplePage, NO_SUCH_LOCATION } from '../http/schemas.js';
import {
  ConfirmationResent,
  ConfirmQuery,
  Subscription,
  SubscriptionCreate,
  SubscriptionList,
  SubscriptionListQuery,
} from './schemas.js';

const operation = operationsTagged('Subscriptions', 'account');
const sandboxOperation = operationsTagged('Sandbox: subscriptions', 'account');

const NO_SUCH_SUBSCRIPTION = 'not_found: no such subscription in this account.';

const example = {
  subscriptionId: DEMO.subscriptionId,
  locationId: DEMO.locationId,
  endpoint: 'https://example.com/hooks',
  status: 'pending',
};

export const createSubscriptionOp = operation('createSubscription', 'POST /v1/locations/{locationId}/subscriptions', {
  summary: "Subscribe an endpoint to the location's alerts",
  description:
    'Answers the subscription, pending, and POSTs {"confirmationUrl", "confirmationToken"} (JSON) to the endpoint; calling the confirmationUrl ' +
    'confirms it. The endpoint must answer GET and POST with valid JSON; the delivery log (GET /sandbox/deliveries) shows what it answered.',
  body: { schema: SubscriptionCreate, required: true, example: { endpoint: 'https://example.com/hooks' } },
  responses: { 200: { description: 'The subscription, pending.', schema: Subscription, example } },
  errors: {
    400: 'invalid_parameter: endpoint is missing, not an absolute URL, or not allowed by ENDPOINT_POLICY or BLOCK_PRIVATE_ENDPOINTS.',
    404: NO_SUCH_LOCATION,
    409: 'limit_reached (SANDBOX): the location has MAX_SUBSCRIPTIONS_PER_LOCATION subscriptions already (a hosted sandbox: 20 by default).',
  },
  sandbox:
    'Plain http endpoints are accepted on localhost, 127.0.0.1 and [::1] (ENDPOINT_POLICY=https-or-loopback, the default); production requires https. ' +
    'Subscribing the same endpoint to the same location again answers the existing subscription (a pending one gets a fresh confirmation) instead of a duplicate.',
});

export const listLocationSubscriptionsOp = operation(
  'listLocationSubscriptions',
  'GET /v1/locations/{locationId}/subscriptions',
  {
    summary: "The location's subscriptions",
    query: SubscriptionListQuery,
    responses: {
      200: {
        description: 'A page of subscriptions.',
        schema: SubscriptionList,
        example: examplePage('subscriptions', [example]),
      },
    },
    errors: {
      400: 'invalid_parameter: page or perPage is not valid.',
      404: NO_SUCH_LOCATION,
    },
  },
);

export const listSubscriptionsOp = operation('listSubscriptions', 'GET /v1/subscriptions', {
  summary: "The account's subscriptions",
  query: SubscriptionListQuery,
  responses: {
    200: {
      description: 'A page of subscriptions.',
      schema: SubscriptionList,
      example: examplePage('subscriptions', []),
    },
  },
  errors: { 400: 'invalid_parameter: page or perPage is not valid.' },
});

export const confirmSubscriptionOp = operation(
  'confirmSubscription',
  'GET /v1/subscriptions/{subscriptionId}/confirm',
  {
    summary: 'Confirm a subscription',
    description:
      'Call the confirmationUrl of the confirmation message as it is. The token is single-use and expires (CONFIRMATION_TOKEN_TTL, 600 s by default); ' +
      'POST /sandbox/subscriptions/{subscriptionId}/confirmation sends a new one. A slash before the query (/confirm/?confirmationToken=..., as the official Python client sends it) is accepted.',
    trailingSlash: true,
    query: ConfirmQuery,
    queryExample: { confirmationToken: 'the-token-from-the-confirmation-message' },
    responses: {
      200: {
        description: 'The subscription, confirmed.',
        schema: Subscription,
        example: { ...example, status: 'confirmed' },
      },
    },
    errors: {
      400: 'invalid_parameter (confirmationToken missing, or sent as ?confirmationToken<token> without "="), invalid_confirmation_token, confirmation_token_used or confirmation_token_expired; each names confirmationToken.',
      404: NO_SUCH_SUBSCRIPTION,
    },
  },
);

export const getSubscriptionOp = operation('getSubscription', 'GET /v1/subscriptions/{subscriptionId}', {
  summary: 'One subscription',
  responses: { 200: { description: 'The subscription.', schema: Subscription, example } },
  errors: { 404: NO_SUCH_SUBSCRIPTION },
});

export const deleteSubscriptionOp = operation('deleteSubscription', 'DELETE /v1/subscriptions/{subscriptionId}', {
  summary: 'Delete a subscription',
  description:
    'Production documents no answer; the sandbox answers 200 with the deleted subscription, since the official Node client crashes on an empty 200. Its pending deliveries are cancelled.',
  responses: { 200: { description: 'The deleted subscription.', schema: Subscription, example } },
  errors: { 404: NO_SUCH_SUBSCRIPTION },
});

export const resendConfirmationOp = sandboxOperation(
  'resendConfirmation',
  'POST /sandbox/subscriptions/{subscriptionId}/confirmation',
  {
    secrets: 'the confirmation token (on a local sandbox, and for relay endpoints)',
    summary: 'A fresh confirmation token',
    description:
      'Issues a new token (the old one stops working) and POSTs the confirmation message to the endpoint again. A local sandbox returns it here too, so a partner ' +
      'whose endpoint the sandbox cannot reach can still confirm; so does a hosted one for a relay endpoint of the account (water-sandbox listen). For any other ' +
      'endpoint a hosted sandbox answers where the message went and its delivery, never the token: only the endpoint receiving it proves it asked for the traffic.',
    responses: {
      200: { description: 'The new confirmation message, or (hosted) where it went.', schema: ConfirmationResent },
    },
    errors: {
      404: NO_SUCH_SUBSCRIPTION,
      409: 'already_confirmed: the subscription is confirmed already.',
    },
  },
);

export const subscriptionsOperations = [
  createSubscriptionOp,
  listLocationSubscriptionsOp,
  listSubscriptionsOp,
  confirmSubscriptionOp,
  getSubscriptionOp,
  deleteSubscriptionOp,
  resendConfirmationOp,
];
