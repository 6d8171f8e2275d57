import { MAX_GENERATED_LOCATIONS } from '../accounts/bounds.js';
import type { Limits } from './shape.js';

/**
 * The HTTP server's timeouts. Headers and a whole request (at most 100 kB) come in far less
 * than these from any real client, so a client that trickles them in holds a connection this
 * long at most. An idle kept-alive connection stays open longer than the idle timeout of the
 * proxies and load balancers put in front (60 s is usual), so the sandbox never closes a
 * connection the proxy is about to reuse (which the proxy would answer with a 502).
 */
export const HTTP_DEFAULTS = Object.freeze({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 65_000,
});

/**
 * The limits of a local sandbox: room for a CI suite or a demo (hundreds of subscriptions on one
 * location, a thousand faults), yet nothing one account sends can take the process down. 0 = none.
 */
export const LOCAL_LIMITS: Limits = Object.freeze({
  accountCreationsPerHour: 0,
  accountCreationsPerPrefixPerHour: 0,
  accounts: 0,
  signInsPerMinute: 0,
  subscriptionsPerLocation: 0,
  locationsPerAccount: MAX_GENERATED_LOCATIONS,
  openRelays: 50,
  accountBytes: 8 * 1024 * 1024,
  faults: 1000,
  oauthClients: 100,
  connectedApps: 100,
  pendingDeliveries: 10_000,
  runningRuns: 100,
  openStreams: 20,
  openStreamsTotal: 1000,
  streamBufferBytes: 1024 * 1024,
  // Only a signed-in browser has a session: a bound all the same.
  sessions: 100_000,
  // One user, or one CI suite: its requests are never made to wait for each other.
  concurrentRequests: 0,
  queuedRequests: 1000,
  accountWriteRate: 0,
  // A demo shown to a room, a webinar: links for several rehearsals, an audience of a few hundred.
  demoLinks: 20,
  demoViewers: 300,
  // An agent waits on a few deliveries at once; each wait ends within the SDK client's 60 s request timeout.
  mcpWaits: 20,
  mcpWaitSeconds: 50,
});

/** The limits of a hosted sandbox: strangers share it, and its process runs in a 256 MB heap. */
export const HOSTED_LIMITS: Limits = Object.freeze({
  accountCreationsPerHour: 20,
  // Three /64s' worth for a whole /48: a site with several networks, not 65,536 fresh limits.
  accountCreationsPerPrefixPerHour: 60,
  // With the bounds of each account (at most about 2 MB on disk when filled), 20 GB at the very worst.
  accounts: 10_000,
  // One a second: a person signs in a few times an hour, a browser suite's workers once a test at most.
  signInsPerMinute: 60,
  subscriptionsPerLocation: 20,
  locationsPerAccount: 5,
  openRelays: 5,
  accountBytes: 1024 * 1024,
  faults: 100,
  oauthClients: 20,
  connectedApps: 20,
  pendingDeliveries: 1000,
  runningRuns: 10,
  openStreams: 10,
  openStreamsTotal: 500,
  streamBufferBytes: 256 * 1024,
  sessions: 10_000,
  // Another client's request waits behind at most 4 of one client's; a suite of 8 parallel workers still never sees a 429.
  concurrentRequests: 4,
  queuedRequests: 64,
  // A full account (1 MiB and its delivery log) written about 3 times a second at most, however many changes come.
  accountWriteRate: 8 * 1024 * 1024,
  // A demo to a prospect's team: an audience of 50 and the presenter, a few links at once.
  demoLinks: 5,
  demoViewers: 60,
  // Each wait holds a request, its turn of MAX_CONCURRENT_REQUESTS and a slot of MAX_OPEN_STREAMS_TOTAL.
  mcpWaits: 4,
  mcpWaitSeconds: 20,
});

/** Finished deliveries kept per account: WEBHOOK_LOG_LIMIT's defaults. */
export const DELIVERY_LOG_LIMITS = Object.freeze({ local: 1000, hosted: 200 });

/** The variable of each limit. */
export const LIMIT_VARIABLES: Readonly<Record<keyof Limits, string>> = Object.freeze({
  accountCreationsPerHour: 'ACCOUNT_CREATION_LIMIT',
  accountCreationsPerPrefixPerHour: 'ACCOUNT_CREATION_PREFIX_LIMIT',
  accounts: 'MAX_ACCOUNTS',
  signInsPerMinute: 'SIGN_IN_LIMIT',
  subscriptionsPerLocation: 'MAX_SUBSCRIPTIONS_PER_LOCATION',
  locationsPerAccount: 'MAX_LOCATIONS_PER_ACCOUNT',
  openRelays: 'MAX_OPEN_RELAYS',
  accountBytes: 'ACCOUNT_STORAGE_LIMIT',
  faults: 'MAX_FAULTS',
  oauthClients: 'MAX_OAUTH_CLIENTS',
  connectedApps: 'MAX_CONNECTED_APPS',
  pendingDeliveries: 'MAX_PENDING_DELIVERIES',
  runningRuns: 'MAX_RUNNING_RUNS',
  openStreams: 'MAX_OPEN_STREAMS',
  openStreamsTotal: 'MAX_OPEN_STREAMS_TOTAL',
  streamBufferBytes: 'STREAM_BUFFER_LIMIT',
  sessions: 'MAX_SESSIONS',
  concurrentRequests: 'MAX_CONCURRENT_REQUESTS',
  queuedRequests: 'MAX_QUEUED_REQUESTS',
  accountWriteRate: 'ACCOUNT_WRITE_RATE',
  demoLinks: 'MAX_DEMO_LINKS',
  demoViewers: 'MAX_DEMO_VIEWERS',
  mcpWaits: 'MAX_MCP_WAITS',
  mcpWaitSeconds: 'MAX_MCP_WAIT_SECONDS',
});

/** The variables of the protections a hosted sandbox defaults to tighter values. */
export const PROTECTION_VARIABLES: readonly string[] = [
  'BLOCK_PRIVATE_ENDPOINTS',
  'ENDPOINT_POLICY',
  'METRICS_OPEN',
  ...Object.values(LIMIT_VARIABLES),
  'WEBHOOK_LOG_LIMIT',
];

/** Each limit: its variable when set, else the default of a hosted or a local sandbox. */
export function resolveLimits(v: Record<string, unknown>, defaults: Limits): Limits {
  const limits = { ...defaults };
  for (const [key, variable] of Object.entries(LIMIT_VARIABLES) as [keyof Limits, string][]) {
    const value = v[variable];
    if (typeof value === 'number') limits[key] = value;
  }
  return Object.freeze(limits);
}
