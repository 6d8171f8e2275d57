import { z } from 'zod';

import { operationsTagged } from '../http/operation.js';
import { jsonObject, quotedList } from '../http/schemas.js';
import { DEFAULT_RELAY_NAME, RELAY_KEY_HEADER, RELAY_NAME } from './hub.js';

/** Bodies of the local answer kept (the delivery log keeps the first 500 characters). */
export const MAX_ANSWER_BODY_CHARS = 32_768;

const operation = operationsTagged('Sandbox: relays', 'account');
const NO_SUCH_RELAY = 'relay_not_found: no such relay in this account.';
const NOT_YOURS = `relay_key_invalid: ${RELAY_KEY_HEADER} is missing or is not this relay's key: the relay belongs to the connection that opened it.`;
/** The header every call of an opened relay sends. */
const RELAY_KEY = {
  [RELAY_KEY_HEADER]:
    'The relayKey POST /sandbox/relays gave: a relay belongs to the connection that opened it, not to every holder of the account’s credentials.',
};
const SANDBOX =
  "Not in production: the relay behind `water-sandbox listen`, which brings webhooks to a URL on the partner's own machine.";

const OPEN_RELAY_EXAMPLE = `{"name": "${DEFAULT_RELAY_NAME}"}`;

export const OpenRelayBody = jsonObject(
  {
    name: z
      .string()
      .regex(RELAY_NAME, 'name is 1 to 40 lowercase letters, digits and dashes, starting with a letter or digit')
      .optional()
      .meta({
        description: `A name for the relay, shown in its id; "${DEFAULT_RELAY_NAME}" when absent.`,
      }),
  },
  {
    notObject: `The request body must be a JSON object such as ${OPEN_RELAY_EXAMPLE}, or nothing`,
    unknownKeys: (keys) => `Unknown field ${JSON.stringify(keys[0])}; allowed: name`,
  },
)
  // No body opens the default relay.
  .optional()
  .meta({ description: 'Which relay to open.' });

export const Relay = z
  .strictObject({
    relayId: z.string().meta({
      description:
        "The relay's id: its name, then parts that are new each time a relay is opened and that only the sandbox can make for this account.",
    }),
    name: z.string(),
    endpoint: z.string().meta({
      description:
        "The URL to subscribe (POST /v1/locations/{locationId}/subscriptions): webhooks sent to it go down the relay's stream.",
    }),
    relayKey: z.string().meta({
      description: `Send it as ${RELAY_KEY_HEADER} with every call of this relay (its stream, its answers, its endpoint over HTTP): only the opener has it.`,
    }),
  })
  .meta({ description: 'A relay of the account.' });

/**
 * The local URL's answer, or why there is none. One flat object rather than a union, so that a
 * mistake is reported against the field at fault.
 */
const REPLY_FIELDS = ['status', 'headers', 'body', 'error'];

export const RelayReplyBody = jsonObject(
  {
    status: z.int().min(100).max(599).optional().meta({ description: 'The status the local URL answered.' }),
    headers: z.record(z.string(), z.string()).optional().meta({ description: 'Its response headers.' }),
    body: z
      .string()
      .max(MAX_ANSWER_BODY_CHARS)
      .optional()
      .meta({ description: `Its body, at most ${MAX_ANSWER_BODY_CHARS} characters.` }),
    error: z.string().min(1).max(1000).optional().meta({
      description: 'Why the local URL gave no answer (e.g. ECONNREFUSED); instead of status, headers and body.',
    }),
  },
  {
    notObject: 'The reply must be a JSON object: {"status", "headers", "body"} or {"error"}',
    unknownKeys: (keys) => `Unknown field ${JSON.stringify(keys[0])}; allowed: ${quotedList(REPLY_FIELDS)}`,
  },
)
  .superRefine((reply, ctx) => {
    if ((reply.status === undefined) === (reply.error === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['status'],
        message: 'send either status (with headers and body: the local answer) or error (why there is none)',
      });
    } else if (reply.error !== undefined && (reply.headers !== undefined || reply.body !== undefined)) {
      ctx.addIssue({ code: 'custom', path: ['error'], message: 'an error reply has no headers or body' });
    }
  })
  .meta({ description: 'The answer of the local URL to one relayed request: status, headers and body; or error.' });

const Accepted = z.strictObject({ status: z.literal('accepted') });

export const openRelayOp = operation('openRelay', 'POST /sandbox/relays', {
  secrets: 'the relay key',
  summary: 'Open a relay for `water-sandbox listen`',
  description: `A new relay of the account, its endpoint URL to subscribe, and its key: the relay belongs to this caller, who sends the key as ${RELAY_KEY_HEADER} with every call of it. Another holder of the account's credentials cannot attach to it, answer for it, or call it.`,
  sandbox: SANDBOX,
  body: { schema: OpenRelayBody, required: false, example: { name: DEFAULT_RELAY_NAME } },
  responses: { 200: { description: 'The relay.', schema: Relay } },
  errors: { 400: 'invalid_parameter: name is not valid.' },
});

export const relayRequestsOp = operation('relayRequests', 'GET /sandbox/relays/{relayId}/requests', {
  secrets: 'the webhooks relayed (confirmation tokens and token responses among them)',
  summary: "The relay's requests, as server-sent events",
  description:
    'A stream of `event: ready` (once attached: `{"relayId", "endpoint"}`), then one `event: request` per webhook (`{"requestId", "method", "headers", "body", "timeoutMs"}`), with a comment line every 15 s while idle. The listener answers each request with POST /sandbox/relays/{relayId}/replies/{requestId}. One stream per relay: a new one replaces the old.',
  sandbox: SANDBOX,
  requestHeaders: RELAY_KEY,
  responses: { 200: { description: 'The stream, open until the client leaves.', eventStream: true } },
  errors: {
    403: NOT_YOURS,
    404: NO_SUCH_RELAY,
    409: 'limit_reached: the account holds MAX_OPEN_RELAYS streams open on this replica already (a hosted sandbox: 5 by default), or the replica holds MAX_OPEN_STREAMS_TOTAL and no account holds two more than this one.',
  },
});

export const relayReplyOp = operation('replyToRelayRequest', 'POST /sandbox/relays/{relayId}/replies/{requestId}', {
  summary: "The local URL's answer to one relayed request",
  sandbox: SANDBOX,
  requestHeaders: RELAY_KEY,
  body: {
    schema: RelayReplyBody,
    required: true,
    example: { status: 200, headers: { 'content-type': 'application/json' }, body: '{}' },
  },
  responses: {
    202: {
      description:
        "Taken: the webhook's delivery gets this answer (an answer that comes after the delivery gave up is dropped).",
      schema: Accepted,
    },
  },
  errors: {
    400: 'invalid_parameter: requestId or the body is not valid.',
    403: NOT_YOURS,
    404: NO_SUCH_RELAY,
  },
});

const relayEndpoint = {
  sandbox: `${SANDBOX} The sandbox's own webhooks reach the relay directly; this URL is for trying a listener by hand, by the relay's opener. The Authorization and ${RELAY_KEY_HEADER} headers are not passed on.`,
  requestHeaders: RELAY_KEY,
  responses: {},
  passthrough: "The local URL's answer, passed on: its status, Content-Type and body.",
  errors: {
    403: NOT_YOURS,
    404: NO_SUCH_RELAY,
    502: 'relay_not_connected: no `water-sandbox listen` is attached; or relay_forward_failed: it could not reach its local URL.',
    504: 'relay_timeout: the local URL did not answer within WEBHOOK_TIMEOUT_MS.',
  },
} as const;

export const callRelayGetOp = operation('callRelayGet', 'GET /relay/{relayId}', {
  ...relayEndpoint,
  summary: 'Send a GET down the relay to the local URL',
});

export const callRelayPostOp = operation('callRelayPost', 'POST /relay/{relayId}', {
  ...relayEndpoint,
  summary: 'Send a POST down the relay to the local URL',
  body: {
    schema: z.unknown().meta({ description: 'Any JSON: passed on as it is.' }),
    required: false,
    example: { test: true },
  },
});

export const relayOperations = [openRelayOp, relayRequestsOp, relayReplyOp, callRelayGetOp, callRelayPostOp];
