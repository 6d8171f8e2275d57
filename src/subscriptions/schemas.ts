import { z } from 'zod';

import { jsonObject, pageEnvelope, pagingQuery, quotedList } from '../http/schemas.js';

/** Production's Subscription object, exactly its keys. */
export const Subscription = z
  .strictObject({
    subscriptionId: z.string(),
    locationId: z.string(),
    endpoint: z.string().meta({ description: 'The URL that receives the confirmation and the alert notifications.' }),
    status: z
      .enum(['pending', 'confirmed'])
      .meta({ description: 'pending until confirmed with the token sent to the endpoint.' }),
  })
  .meta({ description: "A webhook subscription of a location: production's Subscription, exactly its keys." });

export type PublicSubscription = z.output<typeof Subscription>;

export const DEFAULT_SUBSCRIPTIONS_PER_PAGE = 50;

export const SubscriptionList = pageEnvelope('subscriptions', Subscription).meta({
  description: 'A page of subscriptions.',
});

export const SubscriptionListQuery = z.object(pagingQuery(DEFAULT_SUBSCRIPTIONS_PER_PAGE));

const ENDPOINT_EXAMPLE = '{"endpoint": "https://example.com/hooks"}';

/** POST /v1/locations/{locationId}/subscriptions; the URL rules (ENDPOINT_POLICY) are checked by checkEndpoint. */
export const SubscriptionCreate = jsonObject(
  {
    endpoint: z
      .string({
        error: (issue) =>
          issue.input === undefined
            ? 'endpoint is required: the https URL that receives the confirmation and alert POSTs'
            : `endpoint must be a string URL; got ${JSON.stringify(issue.input)}`,
      })
      .meta({
        format: 'uri',
        description: 'An https URL; the sandbox also accepts http on localhost, 127.0.0.1 and [::1] (ENDPOINT_POLICY).',
      }),
  },
  {
    notObject: `The request body must be a JSON object such as ${ENDPOINT_EXAMPLE}`,
    unknownKeys: (keys) => `A subscription takes only endpoint; remove ${quotedList(keys)}`,
  },
);

const TOKEN_KEY = 'confirmationToken';

/**
 * The query of GET /v1/subscriptions/{id}/confirm. The official Node client (0.4.0) sends
 * `?confirmationToken<token>` with no `=`; that gets a 400 explaining the fix.
 */
export const ConfirmQuery = z
  .looseObject({
    confirmationToken: z
      .string({ error: 'confirmationToken must be given once' })
      .optional()
      .meta({ description: 'The token of the confirmation message (it is in its confirmationUrl).' }),
  })
  .superRefine((query, ctx) => {
    if (query.confirmationToken !== undefined && query.confirmationToken !== '') return;
    const glued = Object.keys(query).some((k) => k.startsWith(TOKEN_KEY) && k.length > TOKEN_KEY.length);
    ctx.addIssue({
      code: 'custom',
      path: [TOKEN_KEY],
      message: glued
        ? 'The query has "confirmationToken<token>" with no "=" between the name and the token; send ?confirmationToken=<token>, as in the confirmationUrl (the official Node client 0.4.0 has this bug)'
        : 'confirmationToken is required: call the confirmationUrl from the confirmation message as it is',
    });
  })
  .transform((query) => ({ confirmationToken: query.confirmationToken ?? '' }))
  .meta({ required: [TOKEN_KEY] });

export const ConfirmationResent = z
  .union([
    z
      .strictObject({
        subscriptionId: z.string(),
        confirmationUrl: z
          .string()
          .meta({ format: 'uri', description: 'PUBLIC_URL/v1/subscriptions/{id}/confirm?confirmationToken=...' }),
        confirmationToken: z.string(),
      })
      .meta({
        description:
          'A local sandbox, or a relay endpoint of the account: the new confirmation message, as sent to the endpoint.',
      }),
    z
      .strictObject({
        subscriptionId: z.string(),
        endpoint: z.string().meta({
          description: 'Where the new confirmation message was sent: the endpoint confirms with the token it carries.',
        }),
        deliveryId: z
          .string()
          .meta({ description: 'Its delivery in GET /sandbox/deliveries (which shows its token as [hidden]).' }),
      })
      .meta({ description: 'A hosted sandbox: the token reaches the endpoint only.' }),
  ])
  .meta({ description: 'The new confirmation message, or where it went.' });
