import type { Config } from './shape.js';

/**
 * The protections in force and why, for the start-up message: each setting with its value and
 * whether it was set or is the hosted or local default.
 */
export function describeProtections(config: Config, publicUrl: string): string[] {
  const { limits } = config;
  const source = (name: string): string =>
    config.protectionsSet.includes(name) ? 'set' : config.hosted ? 'hosted default' : 'local default';
  const cap = (n: number, what: string): string => (n === 0 ? 'no cap' : `${n} ${what}`);
  const kib = (bytes: number): string =>
    bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${Math.round(bytes / 1024)} KiB`;
  const creation =
    config.adminToken !== null
      ? 'account creation needs ADMIN_TOKEN'
      : limits.accountCreationsPerHour === 0
        ? 'account creation open, no rate limit'
        : `${limits.accountCreationsPerHour} new accounts an hour per client address`;
  const rows: [string, string, string][] = [
    [
      'BLOCK_PRIVATE_ENDPOINTS',
      String(config.blockPrivateEndpoints),
      config.blockPrivateEndpoints
        ? 'webhooks reach public addresses only, checked at every connection'
        : 'webhooks may reach this machine and its network',
    ],
    [
      'ENDPOINT_POLICY',
      config.endpointPolicy,
      config.endpointPolicy === 'https-only'
        ? 'subscription endpoints must be https'
        : config.endpointPolicy === 'any'
          ? 'any http(s) endpoint'
          : 'http only on loopback',
    ],
    ['ACCOUNT_CREATION_LIMIT', String(limits.accountCreationsPerHour), creation],
    [
      'ACCOUNT_CREATION_PREFIX_LIMIT',
      String(limits.accountCreationsPerPrefixPerHour),
      config.adminToken !== null
        ? 'account creation needs ADMIN_TOKEN'
        : limits.accountCreationsPerPrefixPerHour === 0
          ? 'no rate limit per IPv6 /48'
          : `${limits.accountCreationsPerPrefixPerHour} new accounts an hour per IPv6 /48`,
    ],
    ['MAX_ACCOUNTS', String(limits.accounts), cap(limits.accounts, 'accounts stored in all')],
    [
      'SIGN_IN_LIMIT',
      String(limits.signInsPerMinute),
      limits.signInsPerMinute === 0
        ? 'sign-ins not limited (failed ones are)'
        : `${limits.signInsPerMinute} sign-ins a minute per client address, succeeded or not`,
    ],
    [
      'METRICS_OPEN',
      String(config.metricsOpen),
      config.metricsOpen
        ? '/metrics answers anyone'
        : config.adminToken === null
          ? '/metrics off until ADMIN_TOKEN is set'
          : '/metrics needs ADMIN_TOKEN',
    ],
    [
      'MAX_SUBSCRIPTIONS_PER_LOCATION',
      String(limits.subscriptionsPerLocation),
      cap(limits.subscriptionsPerLocation, 'subscriptions per location'),
    ],
    [
      'MAX_LOCATIONS_PER_ACCOUNT',
      String(limits.locationsPerAccount),
      `${limits.locationsPerAccount} locations per generated account`,
    ],
    [
      'MAX_OPEN_RELAYS',
      String(limits.openRelays),
      cap(limits.openRelays, 'listen streams per account on each replica'),
    ],
    [
      'MAX_OPEN_STREAMS',
      String(limits.openStreams),
      `${limits.openStreams} dashboard streams per account on each replica`,
    ],
    [
      'MAX_OPEN_STREAMS_TOTAL',
      String(limits.openStreamsTotal),
      `${limits.openStreamsTotal} event streams on each replica, all accounts together`,
    ],
    [
      'STREAM_BUFFER_LIMIT',
      String(limits.streamBufferBytes),
      `a stream whose client leaves ${kib(limits.streamBufferBytes)} unread is closed`,
    ],
    ['ACCOUNT_STORAGE_LIMIT', String(limits.accountBytes), `${kib(limits.accountBytes)} stored per account`],
    ['MAX_FAULTS', String(limits.faults), cap(limits.faults, 'faults per account')],
    ['MAX_OAUTH_CLIENTS', String(limits.oauthClients), cap(limits.oauthClients, 'OAuth clients per account')],
    [
      'MAX_CONNECTED_APPS',
      String(limits.connectedApps),
      cap(limits.connectedApps, "other accounts' applications allowed per account"),
    ],
    [
      'MAX_PENDING_DELIVERIES',
      String(limits.pendingDeliveries),
      cap(limits.pendingDeliveries, 'deliveries waiting per account'),
    ],
    ['MAX_RUNNING_RUNS', String(limits.runningRuns), cap(limits.runningRuns, 'scenario runs running per account')],
    [
      'WEBHOOK_LOG_LIMIT',
      String(config.webhook.logLimit),
      `${config.webhook.logLimit} finished deliveries kept per account`,
    ],
    [
      'MAX_SESSIONS',
      String(limits.sessions),
      `${limits.sessions} login sessions in all; past it the biggest holder's least recently used ends`,
    ],
    [
      'MAX_CONCURRENT_REQUESTS',
      String(limits.concurrentRequests),
      limits.concurrentRequests === 0
        ? 'every request worked on as it comes'
        : `${limits.concurrentRequests} requests of one client address or credential at once on each replica, the rest wait their turn`,
    ],
    [
      'MAX_QUEUED_REQUESTS',
      String(limits.queuedRequests),
      `${limits.queuedRequests} requests of one client waiting on each replica; the next is a 429`,
    ],
    [
      'ACCOUNT_WRITE_RATE',
      String(limits.accountWriteRate),
      limits.accountWriteRate === 0
        ? "an account's file written at every change"
        : `an account's file written at ${kib(limits.accountWriteRate)} a second at most; changes meanwhile are written together`,
    ],
    ['MAX_DEMO_LINKS', String(limits.demoLinks), `${limits.demoLinks} live audience links per account`],
    [
      'MAX_DEMO_VIEWERS',
      String(limits.demoViewers),
      `${limits.demoViewers} presenter-view streams (presenter and audience) per account on each replica`,
    ],
    [
      'MAX_MCP_WAITS',
      String(limits.mcpWaits),
      `${limits.mcpWaits} MCP waits for a delivery per account on each replica`,
    ],
    [
      'MAX_MCP_WAIT_SECONDS',
      String(limits.mcpWaitSeconds),
      `an MCP wait for a delivery lasts ${limits.mcpWaitSeconds} s at most`,
    ],
  ];
  const host = new URL(publicUrl).host;
  if (!config.hosted && config.protectionsSet.length === 0) {
    return [
      `  security    local (PUBLIC_URL ${host} is loopback): webhooks may reach this machine, limits are a local sandbox's generous ones; a PUBLIC_URL partners use elsewhere turns the protections on`,
    ];
  }
  const why = config.hosted
    ? `hosted: PUBLIC_URL ${host} is not loopback, so the protections are on (a setting you give wins)`
    : `local: PUBLIC_URL ${host} is loopback; the protections set are on`;
  const lines = [`  security    ${why}`];
  if (config.hosted && config.adminToken === null)
    lines.push(
      '              ADMIN_TOKEN unset: global admin operations are off, account creation is open to anyone (rate limited)',
    );
  const width = Math.max(...rows.map(([name, value]) => `${name}=${value}`.length));
  for (const [name, value, meaning] of rows)
    lines.push(`              ${`${name}=${value}`.padEnd(width)}  ${meaning} (${source(name)})`);
  return lines;
}
