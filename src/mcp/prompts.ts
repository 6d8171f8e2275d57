import { z } from 'zod';

import { READINESS_CHECKS } from '../readiness/index.js';

/** The checks a receiver of the webhooks passes, as the readiness report names them. */
const RECEIVER_CHECKS = [
  'subscriptions.confirmed',
  'webhooks.confirmation-answer',
  'webhooks.check-answer',
  'webhooks.alert-answer',
  'webhooks.duplicate',
  'webhooks.out-of-order',
] as const;

const checkLines = (ids: readonly (keyof typeof READINESS_CHECKS)[]): string =>
  ids
    .map((id) => {
      const check = READINESS_CHECKS[id];
      return `- \`${id}\`${check.required ? '' : ' (optional)'}: ${check.title}. To show it: ${check.howToShow}`;
    })
    .join('\n');

/** "Write a receiver for the alert webhooks": a plan naming the tools to use and the checks to pass. */
export function receiverPlan(args: { language?: string | undefined; publicUrl: string }): string {
  const language = args.language?.trim() ? args.language.trim() : 'the language and framework of this project';
  return `Write a webhook receiver for the water-monitoring API's alert notifications, in ${language}, and prove it against the sandbox at ${args.publicUrl} with its MCP tools.

What the receiver must do (production's rules, which the sandbox enforces):
1. Answer every POST at once with a 2xx status and a JSON body (for example {"ok": true}); do the work after answering. A non-2xx or non-JSON answer is retried and fails the readiness checks.
2. The first POST after subscribing is the confirmation message {"confirmationUrl", "confirmationToken"}: answer it, then GET the confirmationUrl as it is (it confirms the subscription; the token expires in 10 minutes). The sandbox then checks the endpoint with a GET: answer it 2xx with JSON too.
3. Alert notifications are POSTed with the alert's fields (subscriptionId, locationId, deviceId, type, active, startTime, detectedTime, stopTime, peakValue, peakStatus): active true when an alert starts, false (stopTime set) when it ends.
4. The header X-Sandbox-Delivery-Id is the same on every retry of one notification: drop a notification whose id you have handled already, and still answer it 2xx.
5. An alert end can come for an alert whose start you never heard: answer it 2xx and record the end.

Plan, with the sandbox's tools:
1. list_locations: pick a location of the account.
2. Start the receiver where the sandbox can reach it (a local sandbox reaches http://127.0.0.1:<port>; a hosted one needs https, or water-sandbox listen to forward to your machine), then create_subscription with its URL.
3. wait_for_delivery {"kind": "confirmation"}: read what the receiver answered (get_delivery shows each attempt's status and body); list_subscriptions shows the subscription confirmed once the receiver called the confirmationUrl.
4. start_alert {"type": "highLeak"} at the location, then wait_for_delivery {"kind": "alert", "alertType": "highLeak", "active": true}; end_alert, then wait_for_delivery {"kind": "alert", "active": false}.
5. run_drill duplicate-delivery and run_drill out-of-order; wait_for_delivery for each.
6. get_readiness: every check below must be passed. For one that is not, explain_readiness_check gives its evidence, the fix and its section of docs/readiness.md. reset_readiness starts a clean window after a fix.

Checks to pass:
${checkLines(RECEIVER_CHECKS)}`;
}

/** "Make my integration production-ready": a plan over every check of the readiness report. */
export function productionReadyPlan(args: { publicUrl: string }): string {
  const ids = Object.keys(READINESS_CHECKS) as (keyof typeof READINESS_CHECKS)[];
  const required = ids.filter((id) => READINESS_CHECKS[id].required);
  const optional = ids.filter((id) => !READINESS_CHECKS[id].required);
  return `Make this integration with the water-monitoring API production-ready, graded by the sandbox at ${args.publicUrl} from the integration's own traffic (its /v1 and /oauth2/token requests and its receiver's answers; the sandbox's tools do not count as its traffic).

Plan, with the sandbox's tools:
1. reset_readiness: open a fresh window, so only what the integration does from now counts.
2. Run the integration (its tests, or its normal flow) against ${args.publicUrl}; get_readiness shows each check passed, failed, pending (nothing has shown it yet) or not applicable (the OAuth checks, for an integration that uses only an API key).
3. For each required check that is failed or pending: explain_readiness_check gives its status, the evidence (the requests or deliveries that decided it), the fix in one sentence and its section of docs/readiness.md. Change the code accordingly.
4. Rare cases are provoked with run_drill: expire-tokens (oauth.refresh), rate-limit (errors.rate-limit: wait out Retry-After), server-errors (errors.server-errors: back off, growing waits), duplicate-delivery and out-of-order (the receiver). Then let the integration make its next calls. move_clock {"advanceSeconds": n} counts as waiting, so a test need not sleep.
5. list_requests {"errorsOnly": true} shows the integration's failed requests with their error bodies; list_deliveries and get_delivery show what its receiver answered.
6. Repeat until get_readiness answers "ready": true, then reset_readiness and run once more from clean to be sure.

Required checks:
${checkLines(required)}

Advice (optional checks):
${checkLines(optional)}`;
}

export const ReceiverPromptArgs = {
  language: z
    .string()
    .optional()
    .describe('The language and framework to write it in, e.g. "TypeScript with Express" (default: the project\'s).'),
};
