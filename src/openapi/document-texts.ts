/** The words of the OpenAPI document: its description, its tags, and what each path parameter is. */
import { DEMO } from '../http/demo-examples.js';
import { MCP_TAG } from '../mcp/index.js';

/** The path parameters of the API: what they are and a value that works on the demo data. */
export const PATH_PARAMETERS: Readonly<Record<string, { description: string; example: string }>> = {
  locationId: {
    description:
      "A location of the account (GET /v1/locations lists them); another account's or a malformed id is 404.",
    example: DEMO.locationId,
  },
  subscriptionId: {
    description: 'A subscription of the account (GET /v1/subscriptions lists them).',
    example: DEMO.subscriptionId,
  },
  alertId: {
    description: 'An alert of the location (the alertId of POST /sandbox/locations/{locationId}/alerts).',
    example: DEMO.alertId,
  },
  deliveryId: {
    description: 'A delivery of the account (GET /sandbox/deliveries lists them).',
    example: DEMO.deliveryId,
  },
  runId: {
    description: 'A scenario run of the account (POST /sandbox/scenarios/{name}/runs answers it).',
    example: DEMO.runId,
  },
  name: { description: 'A scenario name (GET /sandbox/scenarios lists them).', example: DEMO.scenario },
  // Relay ids carry a part derived from a secret of the sandbox, so no example works everywhere.
  relayId: {
    description: 'A relay of the account (POST /sandbox/relays answers it).',
    example: 'default.rFiRLiN7T-qNayxkSV2fFb',
  },
  requestId: {
    description: "A request the relay's stream sent (its requestId).",
    example: '3f2b9c1e-8d4a-4b6e-9f0a-2c5d7e8b1a64',
  },
  clientId: {
    description: 'An OAuth client the account registered (GET /sandbox/oauth-clients lists them).',
    example: 'my-client',
  },
  // Audience links are made at the presenter's request: no example exists in advance.
  token: {
    description: "An audience link's token (the end of the url POST /demo/links answers).",
    example: 'a-token-from-post-demo-links',
  },
  linkId: { description: 'An audience link of the account (GET /demo/links lists them).', example: 'link-id' },
};

export const TAGS = [
  { name: 'Locations', description: "Production's /v1 API: the account's homes and their devices." },
  {
    name: 'Subscriptions',
    description: "Production's /v1 API: webhook subscriptions and their confirmation handshake.",
  },
  { name: 'Readings', description: "Production's /v1 API: water usage." },
  {
    name: 'Authorization host',
    description:
      "Production's auth host (auth.streamlabswater.com), served on the same port: OAuth 2.0 authorization code with a real sign-in form.",
  },
  ...[
    'accounts',
    'journal',
    'faults',
    'subscriptions',
    'OAuth clients',
    'alerts',
    'deliveries',
    'clock',
    'scenarios',
    'readiness',
    'relays',
    'service',
  ].map((name) => ({
    name: `Sandbox: ${name}`,
    description:
      "SANDBOX: not in production. Controls of the sandbox, authorized like /v1 (the account's API key or access token) unless said otherwise.",
  })),
  {
    name: 'Demo: presenter view',
    description:
      "SANDBOX: not in production. The presenter view (docs/demo.md): signed in like the dashboard (the browser's login session; a change also sends the page's X-CSRF-Token).",
  },
  {
    name: 'Demo: audience link',
    description: 'SANDBOX: not in production. The read-only view an audience link shows: no sign-in, no changes.',
  },
  {
    name: MCP_TAG,
    description:
      'SANDBOX: not in production. The sandbox as an MCP server for coding agents (docs/agents.md), authorized like the controls.',
  },
];

export const DESCRIPTION = `A sandbox of the residential water-monitoring developer API (the StreamLabs Water API): production's /v1 routes and authorization host, plus /sandbox controls.

**Authentication.** Every /v1 and /sandbox call sends \`Authorization: Bearer <API key or access token>\`. The demo account's key is \`${DEMO.apiKey}\`; \`POST /sandbox/accounts\` makes a fresh account with its own. No usable Authorization header: **401**; a key or token that is unknown, expired or revoked: **403**; both with an RFC 6750 \`WWW-Authenticate: Bearer realm="water-sandbox"\` challenge.

**Errors.** Every answer is JSON, errors included: \`{"error", "message", "parameter"?}\` on /v1 and /sandbox (\`message\` names the parameter and the rule; \`parameter\` names the input at fault), and RFC 6749 \`{"error", "error_description"}\` on /oauth2/token. On every path, a path or query that is not valid percent-encoding is a 400 \`invalid_percent_encoding\`; a body that is not JSON where JSON is read is a 415 (400 \`invalid_json\` when it does not parse), and a body over 100 kB a 413. A path this document does not list answers 404 \`not_found\` (see components.responses.NotFound); a method a listed path does not serve answers 405 with \`Allow\` (components.responses.MethodNotAllowed). /v1 answers 429 with \`Retry-After\` over a rate limit set with POST /sandbox/faults, and any status with the partner's body for an injected fault, marked \`X-Sandbox-Fault: injected\` (the 4XX and 5XX entries).

**Deliberate differences from production** are marked "SANDBOX" in the descriptions: everything under /sandbox, both hosts on one port, http endpoints on loopback, three-decimal volumes, and the others named on each operation.`;
