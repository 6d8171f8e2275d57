/** What the composition root uses of relays (`water-sandbox listen`). */
export { DEFAULT_RELAY_NAME, RELAY_KEY_HEADER, RelayHub, type RelayDeps } from './hub.js';
export { relayEndpointRouter, relaySandboxRouter, type RelayRoutesDeps } from './routes.js';
export { relayAwareSender } from './sender.js';
export { relayOperations } from './operations.js';
export { answersARelayCall } from './routes.js';
