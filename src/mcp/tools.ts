import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

import { createAccountAnswer, createAccountOp, resetAccountAnswer, resetAccountOp } from '../accounts/index.js';
import { endAlertAnswer, endAlertOp, startAlertAnswer, startAlertOp } from '../alerts/index.js';
import { clockState } from '../clock/index.js';
import { AppError, notFound } from '../core/errors.js';
import { addFault, clearFaults, createFaultOp, deleteFaultsOp } from '../faults/index.js';
import type { Operation } from '../http/operation.js';
import { journalAnswer, listRequestsOp } from '../journal/index.js';
import { listLocationsOp, locationsPage, setHomeAway, updateLocationOp } from '../locations/index.js';
import {
  CHECK_IDS,
  drillAnswer,
  getReadinessOp,
  READINESS_GUIDE,
  readinessAnswer,
  resetReadinessAnswer,
  resetReadinessOp,
  runDrillOp,
} from '../readiness/index.js';
import { getWaterUsageOp } from '../readings/index.js';
import {
  cancelRunAnswer,
  cancelRunOp,
  getClockOp,
  getRunOp,
  listScenariosOp,
  moveClock,
  runAnswer,
  scenarioList,
  setClockOp,
  startRunAnswer,
  startRunOp,
} from '../scenarios/index.js';
import { findLocation, findRun } from '../store/lookups.js';
import {
  confirmSubscription,
  confirmSubscriptionOp,
  createSubscription,
  createSubscriptionOp,
  deleteSubscription,
  deleteSubscriptionOp,
  listSubscriptionsOp,
  presentSubscription,
  subscriptionsPage,
} from '../subscriptions/index.js';
import {
  deliveriesPage,
  deliveryAnswer,
  getDeliveryOp,
  listDeliveriesOp,
  redeliverAnswer,
  redeliverOp,
} from '../webhooks/index.js';
import type { McpDeps, ToolCall } from './context.js';
import type { Guides } from './guides.js';
import { ToolInput, type Part, type ToolArgs, type ToolInputSpec } from './tool-input.js';
import { waitForDelivery, WaitForDeliveryInput } from './wait.js';

/** What a tool's handler has besides its arguments. */
export interface ToolScope {
  deps: McpDeps;
  call: ToolCall;
  guides: Guides;
}

/** A tool of the MCP server: what tools/list shows of it, its input, and what tools/call runs. */
export interface McpTool {
  name: string;
  title: string;
  description: string;
  annotations: ToolAnnotations;
  input: { jsonSchema: Record<string, unknown> & { type: 'object' }; parse(args: unknown, tool: string): unknown };
  /** The API operation it calls, if it is one. */
  operation: Operation | undefined;
  run(scope: ToolScope, args: unknown): Promise<unknown>;
}

/** Reads change nothing; every other tool says whether it destroys something (MCP's default for a write is that it does). */
const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };
/** A write that makes the sandbox send requests to the partner's endpoints (webhooks). */
const SENDS: ToolAnnotations = { ...WRITE, openWorldHint: true };
const DESTROYS: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, openWorldHint: false };

/** What each id argument is, as a tool's argument describes it. */
const IDS = {
  locationId: 'A location of the account (list_locations lists them).',
  subscriptionId: 'A subscription of the account (list_subscriptions lists them).',
  alertId: 'An alert of the location: the alertId start_alert answered.',
  name: 'A scenario (list_scenarios lists them).',
  runId: 'A scenario run of the account: the runId run_scenario answered.',
  deliveryId: 'A delivery of the account (list_deliveries lists them).',
} as const;

function tool<P extends string, Q extends Part = undefined, B extends Part = undefined, O extends Part = undefined>(
  spec: ToolInputSpec<P, Q, B, O> & {
    name: string;
    title: string;
    description: string;
    annotations: ToolAnnotations;
    run: (scope: ToolScope, args: ToolArgs<P, Q, B, O>) => unknown;
  },
): McpTool {
  const input = new ToolInput<P, Q, B, O>(spec);
  const op = spec.operation as Operation | undefined;
  return {
    name: spec.name,
    title: spec.title,
    // The route it calls, so that /openapi.json and the guides tell the rest.
    description: op ? `${spec.description} (${op.method.toUpperCase()} ${op.path})` : spec.description,
    annotations: { title: spec.title, ...spec.annotations },
    input,
    operation: op,
    run: (scope, args) => Promise.resolve(spec.run(scope, args as ToolArgs<P, Q, B, O>)),
  };
}

const ListSubscriptionsOwn = z.strictObject({
  locationId: z
    .string({ error: 'locationId must be a string' })
    .min(1, 'locationId must not be empty')
    .optional()
    .meta({ description: "Only this location's subscriptions (list_locations lists them)." }),
});

const ExplainCheckOwn = z.strictObject({
  checkId: z
    .enum(CHECK_IDS, {
      error: (issue) =>
        issue.input === undefined
          ? `checkId is required: one of ${CHECK_IDS.join(', ')}`
          : `checkId must be one of ${CHECK_IDS.join(', ')}; got ${JSON.stringify(issue.input)}`,
    })
    .meta({ description: 'The check, as get_readiness names it (e.g. webhooks.alert-answer).' }),
});

/** explain_readiness_check: one check of the report, with its section of docs/readiness.md as text. */
async function explainCheck({ deps, call, guides }: ToolScope, checkId: string) {
  const report = await readinessAnswer(deps, call.caller.accountId);
  const check = report.checks.find((c) => c.id === checkId);
  if (!check) throw notFound(`The readiness report has no check ${JSON.stringify(checkId)}`);
  const [file = '', anchor = ''] = check.docs.replace(/^docs\//, '').split('#');
  const section = await guides.section(file, anchor);
  return {
    ...check,
    ready: report.ready,
    since: report.since,
    guide:
      section ??
      `${READINESS_GUIDE} is not shipped with this sandbox (${guides.dir}); read it in the package or the repository, section #${anchor}`,
  };
}

/** The tools, in the order tools/list gives them: the API's /v1 calls, the controls, the log, readiness, the account. */
export const TOOLS: readonly McpTool[] = [
  tool({
    name: 'list_locations',
    title: 'List locations',
    description: "The account's locations (homes): ids, names, home/away, devices, active alerts, subscriptions.",
    operation: listLocationsOp,
    annotations: READ,
    run: ({ call }, { query }) => locationsPage(call.caller.doc, query),
  }),
  tool({
    name: 'get_readings',
    title: 'Get water-usage readings',
    description:
      "A page of a location's water-usage readings from startTime (ISO 8601 or epoch seconds) to endTime, grouped by hour, day, month or year, as production's API answers it.",
    operation: getWaterUsageOp,
    params: { locationId: IDS.locationId },
    annotations: READ,
    run: ({ deps, call }, { params, query }) => {
      findLocation(call.caller.doc, params.locationId);
      return deps.readings.readings(call.caller.doc, params.locationId, query).body;
    },
  }),
  tool({
    name: 'set_home_away',
    title: 'Set home or away',
    description: 'Sets a location home or away; in away mode any flow raises the awayLeak alert.',
    operation: updateLocationOp,
    params: { locationId: IDS.locationId },
    annotations: { ...WRITE, idempotentHint: true },
    run: ({ deps, call }, { params, body }) =>
      setHomeAway(deps, call.caller.accountId, params.locationId, body.homeAway),
  }),
  tool({
    name: 'create_subscription',
    title: 'Subscribe an endpoint',
    description:
      "Subscribes an endpoint (your receiver's URL) to a location's alerts. It is pending until confirmed: the sandbox POSTs {confirmationUrl, confirmationToken} to it, and a GET of the confirmationUrl confirms it.",
    operation: createSubscriptionOp,
    params: { locationId: IDS.locationId },
    annotations: SENDS,
    run: async ({ deps, call }, { params, body }) =>
      presentSubscription(await createSubscription(deps, call.caller, params.locationId, body.endpoint)),
  }),
  tool({
    name: 'confirm_subscription',
    title: 'Confirm a subscription',
    description:
      'Confirms a pending subscription with the confirmationToken of its confirmation message (single use; it expires). A receiver normally does this itself by calling the confirmationUrl.',
    operation: confirmSubscriptionOp,
    params: { subscriptionId: IDS.subscriptionId },
    annotations: { ...WRITE, idempotentHint: false },
    run: async ({ deps, call }, { params, query }) =>
      presentSubscription(await confirmSubscription(deps, call.caller, params.subscriptionId, query.confirmationToken)),
  }),
  tool({
    name: 'list_subscriptions',
    title: 'List subscriptions',
    description: "The account's subscriptions (or one location's) and their status, pending or confirmed.",
    operation: listSubscriptionsOp,
    own: ListSubscriptionsOwn,
    annotations: READ,
    run: ({ call }, { query, own }) => subscriptionsPage(call.caller.doc, { ...query, locationId: own.locationId }),
  }),
  tool({
    name: 'delete_subscription',
    title: 'Delete a subscription',
    description: 'Deletes a subscription: it receives nothing more, and its pending deliveries are cancelled.',
    operation: deleteSubscriptionOp,
    params: { subscriptionId: IDS.subscriptionId },
    annotations: { ...DESTROYS, idempotentHint: false },
    run: async ({ deps, call }, { params }) =>
      presentSubscription(await deleteSubscription(deps, call.caller, params.subscriptionId)),
  }),
  tool({
    name: 'start_alert',
    title: 'Start an alert',
    description:
      "Raises an alert at a location now (lowLeak, highLeak, awayLeak, ambientTemp, waterTemp, humidity) with production's rules; every confirmed subscription of the location is sent the alert-start notification. Answers the alert with its alertId.",
    operation: startAlertOp,
    params: { locationId: IDS.locationId },
    annotations: SENDS,
    run: ({ deps, call }, { params, body }) => startAlertAnswer(deps, call.caller, params.locationId, body),
  }),
  tool({
    name: 'end_alert',
    title: 'End an alert',
    description:
      'Ends an alert; confirmed subscriptions are sent the alert-end notification (active false, stopTime set).',
    operation: endAlertOp,
    params: { locationId: IDS.locationId, alertId: IDS.alertId },
    annotations: SENDS,
    run: ({ deps, call }, { params }) => endAlertAnswer(deps, call.caller.accountId, params.locationId, params.alertId),
  }),
  tool({
    name: 'list_scenarios',
    title: 'List scenarios',
    description: 'The scripted alert timelines this sandbox can play (run_scenario plays one at a location).',
    operation: listScenariosOp,
    annotations: READ,
    run: ({ deps }) => scenarioList(deps),
  }),
  tool({
    name: 'run_scenario',
    title: 'Run a scenario',
    description:
      "Plays a scenario at a location: its steps (alerts, usage changes, disconnects) happen at their times on the account's clock; move_clock runs them at once.",
    operation: startRunOp,
    params: { name: IDS.name },
    annotations: SENDS,
    run: ({ deps, call }, { params, body }) =>
      startRunAnswer(deps, call.caller.accountId, params.name, body.locationId),
  }),
  tool({
    name: 'get_scenario_run',
    title: 'Get a scenario run',
    description: "A scenario run's progress: its state, the steps done and when the next one is due.",
    operation: getRunOp,
    params: { runId: IDS.runId },
    annotations: READ,
    run: ({ deps, call }, { params }) => runAnswer(deps, findRun(call.caller.doc, params.runId)),
  }),
  tool({
    name: 'cancel_scenario_run',
    title: 'Cancel a scenario run',
    description: 'Cancels a running scenario: no later step happens; the alerts it started stay as they are.',
    operation: cancelRunOp,
    params: { runId: IDS.runId },
    annotations: { ...DESTROYS, idempotentHint: false },
    run: ({ deps, call }, { params }) => cancelRunAnswer(deps, call.caller, params.runId),
  }),
  tool({
    name: 'get_clock',
    title: 'Get the clock',
    description:
      "The account's virtual clock: now, its offset from the wall clock, and whether it is frozen. It drives readings, token and confirmation expiry, scenarios and webhook retries.",
    operation: getClockOp,
    annotations: READ,
    run: ({ deps, call }) => clockState(deps.clock, call.caller.doc.clock),
  }),
  tool({
    name: 'move_clock',
    title: 'Move the clock',
    description:
      'Moves the account\'s clock: {"advanceSeconds": n} forward (running the retries and scenario steps due on the way), {"now": "<ISO 8601>"} to an instant, {"frozen": true|false}, or {"realTime": true} back to the wall clock.',
    operation: setClockOp,
    annotations: SENDS,
    run: ({ deps, call }, { body }) => moveClock(deps, call.caller.accountId, body),
  }),
  tool({
    name: 'add_fault',
    title: 'Add a fault',
    description:
      "Makes the account's next matching /v1 requests fail (status, body, delay, times), or sets a rate limit: for testing how the integration handles errors.",
    operation: createFaultOp,
    annotations: WRITE,
    run: ({ deps, call }, { body }) => addFault(deps, call.caller.accountId, body),
  }),
  tool({
    name: 'clear_faults',
    title: 'Clear faults',
    description: 'Removes every queued fault and the rate limit.',
    operation: deleteFaultsOp,
    annotations: { ...DESTROYS, idempotentHint: true },
    run: ({ deps, call }) => clearFaults(deps, call.caller.accountId),
  }),
  tool({
    name: 'run_drill',
    title: 'Run a readiness drill',
    description:
      'Provokes a rare case the readiness report grades: expire-tokens, rate-limit (the next 3 /v1 requests answer 429), server-errors (503s), duplicate-delivery (the latest delivered alert again, same X-Sandbox-Delivery-Id), out-of-order (an alert end of an alert never started).',
    operation: runDrillOp,
    annotations: SENDS,
    run: ({ deps, call }, { body }) => drillAnswer(deps, call.caller, body.drill),
  }),
  tool({
    name: 'list_deliveries',
    title: 'List deliveries',
    description:
      'The delivery log: every webhook the sandbox sent for the account (confirmations, alerts, checks), newest first, with each attempt and what the receiver answered.',
    operation: listDeliveriesOp,
    annotations: READ,
    run: ({ deps, call }, { query }) => deliveriesPage(deps, call.caller.accountId, query),
  }),
  tool({
    name: 'get_delivery',
    title: 'Get a delivery',
    description:
      'One delivery: its target, headers, payload, each attempt (status, latency, error, answer) and its state.',
    operation: getDeliveryOp,
    params: { deliveryId: IDS.deliveryId },
    annotations: READ,
    run: ({ deps, call }, { params }) => deliveryAnswer(deps, call.caller.accountId, params.deliveryId),
  }),
  tool({
    name: 'redeliver',
    title: 'Send a delivery again',
    description:
      'Sends a delivery again as a new one; {"sameDeliveryId": true} sends it as a duplicate, with the same X-Sandbox-Delivery-Id.',
    operation: redeliverOp,
    params: { deliveryId: IDS.deliveryId },
    annotations: SENDS,
    run: ({ deps, call }, { params, body }) =>
      redeliverAnswer(deps, call.caller.accountId, params.deliveryId, {
        sameDeliveryId: body?.sameDeliveryId ?? false,
      }),
  }),
  tool({
    name: 'wait_for_delivery',
    title: 'Wait for a delivery',
    description:
      'Waits until the newest delivery that fits (kind, subscriptionId, alertType, active, or one deliveryId) is in the state asked for (default: finished, delivered or failed), then answers it; ' +
      'after timeoutSeconds it answers what the log holds instead: the newest delivery that fits, the counts by state and the latest deliveries. Woken by the delivery itself, not by polling.',
    own: WaitForDeliveryInput,
    annotations: READ,
    run: ({ deps, call }, { own }) => waitForDelivery(deps, call.caller.accountId, own, call.signal),
  }),
  tool({
    name: 'list_requests',
    title: 'List requests',
    description:
      "The request journal: the account's recent API requests (method, path, query, status, time), newest first; errorsOnly: true keeps the failed ones, each with the start of its error body.",
    operation: listRequestsOp,
    annotations: READ,
    run: ({ deps, call }, { query }) => journalAnswer(deps, call.caller.accountId, query),
  }),
  tool({
    name: 'get_readiness',
    title: 'Get the readiness report',
    description:
      'Grades the integration from its own traffic: ready or not, and each check passed, failed, pending or not applicable, with its evidence and the fix.',
    operation: getReadinessOp,
    annotations: READ,
    run: ({ deps, call }) => readinessAnswer(deps, call.caller.accountId),
  }),
  tool({
    name: 'explain_readiness_check',
    title: 'Explain a readiness check',
    description:
      'One check of the readiness report: its status, the evidence (the requests or deliveries that decided it), the fix, and its section of docs/readiness.md as text (why production needs it, what passes and fails it, how to show it).',
    own: ExplainCheckOwn,
    annotations: READ,
    run: (scope, { own }) => explainCheck(scope, own.checkId),
  }),
  tool({
    name: 'reset_readiness',
    title: 'Reset readiness',
    description: 'Opens a new readiness window: evidence from before no longer counts. Answers the fresh report.',
    operation: resetReadinessOp,
    annotations: { ...DESTROYS, idempotentHint: true },
    run: ({ deps, call }) => resetReadinessAnswer(deps, call.caller.accountId),
  }),
  tool({
    name: 'reset_account',
    title: 'Reset the account',
    description:
      'Puts the account back to its initial state: locations, subscriptions, alerts, deliveries, journal, clock, faults and readiness window.',
    operation: resetAccountOp,
    annotations: { ...DESTROYS, idempotentHint: true },
    run: ({ deps, call }) => resetAccountAnswer(deps, call.caller.accountId),
  }),
  tool({
    name: 'create_account',
    title: 'Create an account',
    description:
      'Makes a fresh, isolated account and answers its API key, a login user and its locations (for a clean run: connect again with the new key to act on it). Under the limits of POST /sandbox/accounts on this sandbox; not available when its operator set ADMIN_TOKEN.',
    operation: createAccountOp,
    annotations: WRITE,
    run: ({ deps, call }, { body }) => {
      // With ADMIN_TOKEN set, creating accounts needs that token, which an account's key is not.
      if (deps.config.adminToken !== null)
        throw new AppError(
          403,
          'admin_token_required',
          "Account creation on this sandbox needs its ADMIN_TOKEN (POST /sandbox/accounts with Authorization: Bearer <ADMIN_TOKEN>); an account's key cannot create accounts here",
        );
      return createAccountAnswer(deps, body, call.clientAddress, call.clientNetwork);
    },
  }),
];
