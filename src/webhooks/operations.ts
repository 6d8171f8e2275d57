import { z } from 'zod';

import { operationsTagged } from '../http/operation.js';
import { examplePage, isoInstant, pageEnvelope, pagingQuery, queryText } from '../http/schemas.js';
import type { DeliveryKind, DeliveryState } from '../store/data.js';

export const DEFAULT_DELIVERIES_PER_PAGE = 50;
const STATES = ['pending', 'delivered', 'failed'] as const satisfies readonly DeliveryState[];
const KINDS = ['confirmation', 'alert', 'token', 'receiver_check'] as const satisfies readonly DeliveryKind[];
const LIST_QUERY = ['subscriptionId', 'locationId', 'state', 'kind', 'page', 'perPage'];

const oneOf = <T extends string>(name: string, values: readonly T[], description: string) =>
  queryText(name)
    .superRefine((text, ctx) => {
      if (!(values as readonly string[]).includes(text))
        ctx.addIssue({
          code: 'custom',
          message: `${name} must be one of ${values.join(', ')}; got ${JSON.stringify(text)}`,
        });
    })
    .transform((text) => text as T)
    .optional()
    .meta({ enum: [...values], description });

export const DeliveryListQuery = z.strictObject(
  {
    subscriptionId: queryText('subscriptionId')
      .optional()
      .meta({ description: 'Only deliveries of this subscription.' }),
    locationId: queryText('locationId').optional().meta({ description: 'Only deliveries for this location.' }),
    state: oneOf('state', STATES, 'Only deliveries in this state.'),
    kind: oneOf('kind', KINDS, 'Only deliveries of this kind.'),
    ...pagingQuery(DEFAULT_DELIVERIES_PER_PAGE),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `Unknown query parameter ${JSON.stringify(issue.keys[0])}; the filters are ${LIST_QUERY.join(', ')}`
        : undefined,
  },
);

export const DeliveryAttempt = z
  .strictObject({
    at: isoInstant.meta({ description: 'When it was sent, on the account clock.' }),
    statusCode: z
      .int()
      .nullable()
      .meta({ description: 'The status the endpoint answered; null when it did not answer.' }),
    latencyMs: z.number().min(0),
    error: z
      .string()
      .nullable()
      .meta({ description: 'Why it failed: a status that is not 2xx, a timeout, a refused connection...' }),
    responseExcerpt: z.string().nullable().meta({ description: "The first characters of the answer's body." }),
    warnings: z
      .array(z.string())
      .meta({ description: 'Warnings about an answer that counted as success, e.g. a 2xx body that is not JSON.' }),
  })
  .meta({ description: 'One attempt of a delivery.' });

export const Delivery = z
  .strictObject({
    deliveryId: z
      .string()
      .meta({ description: 'Also sent as the X-Sandbox-Delivery-Id header, the same on every retry.' }),
    kind: z.enum(KINDS).meta({
      description:
        'confirmation, alert, token (the token response POSTed to a redirect URI) or receiver_check (the GET production requires an endpoint to answer).',
    }),
    subscriptionId: z.string().nullable(),
    locationId: z.string().nullable(),
    method: z.enum(['POST', 'GET']),
    target: z.string().meta({ description: 'The URL it is sent to.' }),
    requestHeaders: z.record(z.string(), z.string()).meta({
      description:
        "The request's headers on its first attempt (X-Sandbox-Attempt counts up on each retry), e.g. User-Agent, Accept, Content-Type, X-Sandbox-Delivery-Id, X-Sandbox-Attempt.",
    }),
    payload: z.unknown().meta({ description: 'The JSON body sent (null for a GET).' }),
    state: z.enum(STATES),
    attempts: z.array(DeliveryAttempt),
    createdAt: isoInstant,
    nextAttemptAt: isoInstant
      .nullable()
      .meta({ description: 'When the next retry is due, on the account clock; null once finished.' }),
    redeliveryOf: z
      .string()
      .nullable()
      .meta({ description: 'The delivery this one sends again, if it is a redelivery.' }),
    drill: z
      .enum(['duplicate-delivery', 'out-of-order'])
      .nullable()
      .meta({ description: 'The readiness drill that sent it (POST /sandbox/readiness/drills), if any.' }),
    note: z
      .string()
      .nullable()
      .meta({ description: 'Why it ended without its attempts deciding it, e.g. its subscription was deleted.' }),
  })
  .meta({ description: 'An outgoing webhook: what was sent, where, and every answer.' });

export type DeliveryView = z.output<typeof Delivery>;

export const RedeliverBody = z
  .strictObject(
    {
      sameDeliveryId: z.boolean({ error: 'sameDeliveryId must be true or false' }).optional().meta({
        description:
          "Send it with the first delivery's X-Sandbox-Delivery-Id, as a duplicate; default false (an id of its own).",
      }),
    },
    // Every issue raised here, a refinement's included, whatever the map's type says.
    {
      error: (issue: z.core.$ZodRawIssue) =>
        issue.code === 'unrecognized_keys'
          ? `Unknown field ${JSON.stringify(issue.keys[0])}; redeliver takes only sameDeliveryId`
          : issue.code === 'invalid_type'
            ? 'The body must be a JSON object such as {"sameDeliveryId": true}, or empty'
            : undefined,
    },
  )
  .optional()
  .meta({ description: 'Optional: {"sameDeliveryId": true} sends a duplicate.' });

export const DeliveryList = pageEnvelope('deliveries', Delivery).meta({
  description: 'A page of the delivery log, newest first.',
});

const operation = operationsTagged('Sandbox: deliveries', 'account');

export const listDeliveriesOp = operation('listDeliveries', 'GET /sandbox/deliveries', {
  secrets: 'the requests sent (confirmation tokens and token responses among them)',
  summary: "The account's outgoing webhooks",
  description:
    'Every confirmation, alert notification and token delivery, newest first, with each attempt and the final state. Finished deliveries are kept up to WEBHOOK_LOG_LIMIT per account.',
  query: DeliveryListQuery,
  queryExample: { kind: 'alert' },
  responses: {
    200: {
      description: 'A page of deliveries.',
      schema: DeliveryList,
      example: examplePage('deliveries', []),
    },
  },
  errors: { 400: 'invalid_parameter: an unknown filter, or a state, kind, page or perPage that is not valid.' },
});

export const getDeliveryOp = operation('getDelivery', 'GET /sandbox/deliveries/{deliveryId}', {
  secrets: 'the request sent (a confirmation token or a token response)',
  summary: 'One delivery',
  responses: { 200: { description: 'The delivery.', schema: Delivery } },
  errors: { 404: 'not_found: no such delivery in this account (the log keeps the newest finished ones).' },
});

export const redeliverOp = operation('redeliver', 'POST /sandbox/deliveries/{deliveryId}/redeliver', {
  secrets: 'the request sent (a confirmation token or a token response)',
  summary: 'Send a delivery again',
  description:
    'The same request again, as a new delivery whatever the first one\'s state. It is sent with its own X-Sandbox-Delivery-Id, or with `{"sameDeliveryId": true}` ' +
    'as a duplicate of the first (the same X-Sandbox-Delivery-Id), the way a receiver must be ready to get a notification twice.',
  body: { schema: RedeliverBody, required: false, example: {} },
  responses: { 201: { description: 'The new delivery.', schema: Delivery } },
  errors: {
    400: 'invalid_parameter: the body is not {} or {"sameDeliveryId": true or false}.',
    404: 'not_found: no such delivery in this account.',
  },
});

export const webhooksOperations = [listDeliveriesOp, getDeliveryOp, redeliverOp];
