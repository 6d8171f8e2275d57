import { z } from 'zod';

import { operationsTagged } from '../http/operation.js';
import { isoInstant, onAnyObject, quotedList, wholeNumberField } from '../http/schemas.js';

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD'];
const MAX_DELAY_MS = 60_000;
const FAULT_FIELDS = ['method', 'path', 'status', 'body', 'delayMs', 'retryAfter', 'times'];
const BODY_EXAMPLE = '{"status": 503, "times": 2} or {"rateLimit": {"requests": 10, "perSeconds": 60}}';

export const RateLimit = z
  .strictObject(
    {
      requests: wholeNumberField('rateLimit.requests', 1, 1_000_000, 'Requests allowed per window.'),
      perSeconds: wholeNumberField('rateLimit.perSeconds', 1, 86_400, 'The window, in seconds of the account clock.'),
    },
    {
      // Every issue raised here, a refinement's included, whatever the map's type says.
      error: (issue: z.core.$ZodRawIssue) =>
        issue.code === 'unrecognized_keys'
          ? 'rateLimit takes only requests and perSeconds'
          : issue.code === 'invalid_type'
            ? 'rateLimit must be an object such as {"requests": 10, "perSeconds": 60}'
            : undefined,
    },
  )
  .meta({ description: "A fixed-window limit on the account's /v1 requests; over it, 429 with Retry-After." });

/**
 * POST /sandbox/faults: a fault (method?, path?, status, body?, delayMs?, times?) or a rate
 * limit ({rateLimit} alone). The unknown-field message names both forms.
 */
export const FaultCreate = z
  .strictObject(
    {
      rateLimit: RateLimit.optional().meta({ description: 'Set a rate limit instead of a fault; on its own.' }),
      method: z
        .string({ error: `method must be one of ${METHODS.join(', ')}` })
        .refine((m) => METHODS.includes(m.toUpperCase()), `method must be one of ${METHODS.join(', ')}`)
        .optional()
        .meta({ description: 'Only requests of this method (any case); default any.', examples: ['GET'] }),
      path: z
        .string({
          error: 'path must be a /v1/... path, optionally ending in * to match a prefix (faults apply to /v1 requests)',
        })
        .startsWith(
          '/v1/',
          'path must be a /v1/... path, optionally ending in * to match a prefix (faults apply to /v1 requests)',
        )
        .optional()
        .meta({
          description: 'Only this path, or paths starting with it when it ends in *; default any /v1 path.',
          examples: ['/v1/locations'],
        }),
      status: wholeNumberField(
        'status',
        400,
        599,
        'The status to answer; required unless delayMs makes this a latency-only fault.',
      ).optional(),
      body: z
        .unknown()
        .optional()
        .meta({ description: 'The JSON body to answer; default {"error": "injected_fault", "message"}.' }),
      delayMs: wholeNumberField(
        'delayMs',
        0,
        MAX_DELAY_MS,
        'Wait this long before answering (or before serving the request normally, with no status).',
      ).optional(),
      retryAfter: wholeNumberField(
        'retryAfter',
        0,
        86_400,
        'Send a Retry-After header of this many seconds with the answer (for a 429 or a 503, say).',
      ).optional(),
      times: wholeNumberField('times', 1, 1_000_000, 'How many matching requests fail; default 1; null until deleted.')
        .nullable()
        .optional(),
    },
    {
      // Every issue raised here, a refinement's included, whatever the map's type says.
      error: (issue: z.core.$ZodRawIssue) => {
        if (issue.code === 'unrecognized_keys')
          return `Unknown field ${JSON.stringify(issue.keys[0])}; a fault takes ${FAULT_FIELDS.join(', ')}, or rateLimit alone`;
        if (issue.code === 'invalid_type') return `The request body must be a JSON object such as ${BODY_EXAMPLE}`;
        return undefined;
      },
    },
  )
  .superRefine((body, ctx) => {
    if (body.rateLimit !== undefined && Object.keys(body).length > 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['rateLimit'],
        message: `rateLimit is set on its own, without fault fields; remove ${quotedList(Object.keys(body).filter((k) => k !== 'rateLimit'))}`,
      });
    }
  }, onAnyObject)
  .superRefine((body, ctx) => {
    if (body.rateLimit === undefined && body.status === undefined && !body.delayMs) {
      ctx.addIssue({
        code: 'custom',
        path: ['status'],
        message: 'status (400-599) is required, unless delayMs makes this a latency-only fault',
      });
    }
    if (body.retryAfter !== undefined && body.status === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['retryAfter'],
        message:
          'retryAfter goes with a status (for example 429 or 503): a latency-only fault sends no answer of its own',
      });
    }
  })
  .meta({ description: `A fault, or a rate limit on its own: ${BODY_EXAMPLE}.` });

export const FaultView = z
  .strictObject({
    faultId: z.string(),
    method: z.string().nullable().meta({ description: 'null: any method.' }),
    path: z.string().nullable().meta({ description: 'null: any /v1 path.' }),
    status: z.int().nullable().meta({ description: 'null: a latency-only fault.' }),
    body: z.unknown().meta({ description: 'The body it answers; null for the default.' }),
    delayMs: z.int().min(0),
    retryAfter: z
      .int()
      .min(0)
      .nullable()
      .meta({ description: 'Seconds sent as Retry-After with the answer; null: no header.' }),
    createdAt: isoInstant,
    times: z.int().nullable().meta({ description: 'Matching requests left to fail; null until deleted.' }),
  })
  .meta({ description: 'A queued fault.' });

export const RateLimitSet = z.strictObject({ rateLimit: RateLimit }).meta({ description: 'The rate limit set.' });

export const FaultList = z
  .strictObject({ faults: z.array(FaultView), rateLimit: RateLimit.nullable() })
  .meta({ description: "The account's queued faults and its rate limit." });

const operation = operationsTagged('Sandbox: faults', 'account');

export const listFaultsOp = operation('listFaults', 'GET /sandbox/faults', {
  summary: 'The queued faults and the rate limit',
  responses: {
    200: { description: 'Faults and rate limit.', schema: FaultList, example: { faults: [], rateLimit: null } },
  },
});

export const createFaultOp = operation('createFault', 'POST /sandbox/faults', {
  summary: "Fail the account's next matching /v1 requests, or set a rate limit",
  description:
    'A fault answers the next matching /v1 requests of this account (times, default 1) with its status and body, after delayMs; with only delayMs it adds latency. ' +
    'Those answers carry X-Sandbox-Fault: injected. A rate limit answers 429 with Retry-After past requests per perSeconds on the account clock.',
  body: {
    schema: FaultCreate,
    required: false,
    example: { method: 'GET', path: '/v1/locations', status: 503, times: 2 },
  },
  responses: {
    201: { description: 'The fault queued, or the rate limit set.', schema: z.union([FaultView, RateLimitSet]) },
  },
  errors: {
    400: 'invalid_parameter: the body is not a fault or a rate limit (the field at fault is named).',
    409: 'limit_reached: the account holds MAX_FAULTS faults already (a hosted sandbox: 100 by default), or its stored data would pass ACCOUNT_STORAGE_LIMIT.',
  },
});

export const deleteFaultsOp = operation('deleteFaults', 'DELETE /sandbox/faults', {
  summary: 'Remove every fault and the rate limit',
  responses: {
    200: {
      description: 'How many were removed (the rate limit counts as one).',
      schema: z.strictObject({ removed: z.int().min(0) }),
      example: { removed: 0 },
    },
  },
});

export const faultsOperations = [listFaultsOp, createFaultOp, deleteFaultsOp];
