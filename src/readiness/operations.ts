import { z } from 'zod';

import { operationsTagged } from '../http/operation.js';
import { isoInstant, jsonObject, NO_BODY_TAKEN, noBody } from '../http/schemas.js';
import { GUIDE } from './catalog.js';
import { DRILLS } from './drills.js';
import { CHECK_IDS } from './model.js';

const drillNames = DRILLS.join(', ');

export const DrillRequest = jsonObject(
  {
    drill: z
      .unknown()
      .superRefine((value, ctx) => {
        if (typeof value !== 'string' || !(DRILLS as readonly string[]).includes(value)) {
          ctx.addIssue({ code: 'custom', message: `drill must be one of ${drillNames}; got ${JSON.stringify(value)}` });
        }
      })
      .transform((value) => value as (typeof DRILLS)[number])
      .meta({ type: 'string', enum: [...DRILLS], description: 'Which rare case to provoke.' }),
  },
  {
    notObject: `The request body must be a JSON object such as {"drill": "rate-limit"}; drills: ${drillNames}`,
    unknownKeys: (keys) => `Unknown field ${JSON.stringify(keys[0])}; a drill request has only drill (${drillNames})`,
  },
).meta({ description: 'The drill to run.' });

const Evidence = z
  .union([
    z.strictObject({
      time: isoInstant.meta({ description: 'When the answer was sent, on the account clock.' }),
      request: z
        .string()
        .meta({ description: 'The request line: method, path and query.', examples: ['GET /v1/locations'] }),
      status: z.int().meta({ description: 'The status the sandbox answered.' }),
      detail: z.string(),
    }),
    z.strictObject({
      time: isoInstant.meta({ description: 'When the first attempt was made, on the account clock.' }),
      deliveryId: z.string().meta({ description: 'The delivery in /sandbox/deliveries.' }),
      status: z
        .int()
        .nullable()
        .meta({ description: 'What the receiver answered at the first attempt; null: no answer.' }),
      detail: z.string(),
    }),
    z.strictObject({
      time: isoInstant,
      subscriptionId: z.string(),
      detail: z.string(),
    }),
  ])
  .meta({ description: 'A request of the journal, a delivery of the log, or a subscription, that decided the check.' });

export const ReadinessCheck = z
  .strictObject({
    id: z.enum(CHECK_IDS),
    title: z.string(),
    required: z.boolean().meta({ description: 'Whether production needs it: `ready` waits for every required check.' }),
    status: z.enum(['passed', 'failed', 'pending', 'not_applicable']).meta({
      description:
        'pending: nothing has happened yet that could show it; not_applicable: OAuth checks of an integration that has used no OAuth in the window.',
    }),
    evidence: z.array(Evidence),
    fix: z
      .string()
      .nullable()
      .meta({ description: 'One sentence: what to change (failed) or how to show it (pending); null otherwise.' }),
    docs: z.string().meta({ description: `The section of the guide (${GUIDE}) about the check.` }),
  })
  .meta({ description: 'One check of the integration.' });

export const ReadinessReport = z
  .strictObject({
    accountId: z.string(),
    since: isoInstant.meta({
      description:
        "When the readiness window opened: the account's creation or reset, or the last POST /sandbox/readiness/reset.",
    }),
    ready: z.boolean().meta({ description: 'Every required check passed (or is not applicable).' }),
    summary: z.strictObject({
      passed: z.int().min(0),
      failed: z.int().min(0),
      pending: z.int().min(0),
      notApplicable: z.int().min(0),
    }),
    checks: z.array(ReadinessCheck),
  })
  .meta({ description: 'Whether the integration is ready for production, from what the sandbox saw of it.' });

export const DrillOutcome = z
  .strictObject({
    drill: z.enum(DRILLS),
    effect: z.string().meta({ description: 'What the drill set up, in one sentence.' }),
    faultIds: z.array(z.string()).meta({ description: 'Faults it queued (see GET /sandbox/faults).' }),
    deliveryIds: z.array(z.string()).meta({ description: 'Deliveries it sent (see GET /sandbox/deliveries).' }),
    expiredTokens: z.int().min(0).meta({ description: 'Access tokens it expired.' }),
  })
  .meta({ description: 'What a drill set up.' });

const operation = operationsTagged('Sandbox: readiness', 'account');
const example = { drill: 'rate-limit' };

export const getReadinessOp = operation('getReadiness', 'GET /sandbox/readiness', {
  summary: 'Whether the integration is ready for production',
  description:
    "Grades the integration from what the sandbox saw since the readiness window opened: its /v1 and /oauth2/token requests (the journal), its receiver's answers (the delivery log) and the " +
    `sandbox's own answers. Each check is passed, failed, pending or not applicable, with the evidence that decided it and one sentence on what to do. Guide: ${GUIDE}.`,
  responses: { 200: { description: 'The readiness report.', schema: ReadinessReport } },
});

export const resetReadinessOp = operation('resetReadiness', 'POST /sandbox/readiness/reset', {
  summary: 'Open a new readiness window',
  description: 'Evidence from before this call no longer counts; answers the fresh report.',
  body: { schema: noBody('readiness/reset'), required: false, example: {} },
  responses: { 200: { description: 'The report of the new window.', schema: ReadinessReport } },
  errors: { 400: NO_BODY_TAKEN },
});

export const runDrillOp = operation('runReadinessDrill', 'POST /sandbox/readiness/drills', {
  summary: 'Provoke a rare case',
  description:
    'expire-tokens: every access token of the account expires now. rate-limit: the next 3 /v1 requests answer 429 with Retry-After: 2. server-errors: the next 3 /v1 requests answer 503. ' +
    'duplicate-delivery: the latest delivered alert notification is sent again with the same X-Sandbox-Delivery-Id. out-of-order: each confirmed subscription receives an alert end of an alert it never heard start.',
  body: { schema: DrillRequest, required: true, example },
  responses: { 200: { description: 'What the drill set up.', schema: DrillOutcome } },
  errors: {
    400: `invalid_parameter: drill is missing or not one of ${drillNames}.`,
    409: 'The drill needs something first: a live access token (expire-tokens), a delivered alert (duplicate-delivery) or a confirmed subscription (out-of-order).',
  },
});

export const readinessOperations = [getReadinessOp, resetReadinessOp, runDrillOp];
