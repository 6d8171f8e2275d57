import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { z } from 'zod';

import { MAX_GENERATED_LOCATIONS } from './accounts/index.js';
import { LOG_LEVELS, type LogLevel } from './core/logger.js';
import { PACKAGE_ROOT } from './core/package-info.js';
import type { TlsConfig } from './http/tls.js';
import type { EndpointPolicy } from './subscriptions/endpoint-policy.js';


export interface Config {
  readonly port: number;
  readonly host: string;
  /** Base URL written into confirmation URLs; null means "http(s)://localhost:<the port actually bound>". */
  readonly publicUrl: string | null;
  /** Folder of the embedded store, or ":memory:". */
  readonly dataDir: string;
  /** A state file of version 0.1, migrated into a fresh DATA_DIR when it exists. */
  readonly legacyDataFile: string | null;
  /** When set, all state lives in this Redis and replicas share it. */
  readonly redisUrl: string | null;
  /** Prefix of every Redis key and channel, so several sandboxes can share one Redis. */
  readonly redisPrefix: string;
  /** Seconds without a request after which a generated account is deleted; 0 = never. */
  readonly accountTtlSeconds: number;
  readonly fixturesDir: string;
  readonly scenariosDir: string;
  readonly seed: number;
  readonly tls: TlsConfig;
  readonly adminToken: string | null;
  readonly accessTokenTtlSeconds: number;
  readonly confirmationTokenTtlSeconds: number;
  readonly authorizationCodeTtlSeconds: number;
  /** The HTTP server's limits on a client: its headers, its whole request, an idle kept-alive connection. */
  readonly http: { readonly headersTimeoutMs: number; readonly requestTimeoutMs: number; readonly keepAliveTimeoutMs: number };
  readonly webhook: { readonly timeoutMs: number; readonly maxAttempts: number; readonly backoffMs: number; readonly concurrency: number; readonly logLimit: number };
  readonly endpointPolicy: EndpointPolicy;
  readonly blockPrivateEndpoints: boolean;
  /**
   * Reached from elsewhere: PUBLIC_URL names a host that is not loopback. Then the protections
   * default to on (BLOCK_PRIVATE_ENDPOINTS, ENDPOINT_POLICY=https-only, the limits below); a
   * variable set explicitly still wins. Redis alone does not make a sandbox hosted.
   */
  readonly hosted: boolean;
  /**
   * What one account may hold or open, and the account-creation rate; each a setting with a
   * generous local default and a tighter hosted one (docs/hosting.md lists them). 0 = none,
   * where a setting allows it.
   */
  readonly limits: {
    /** POST /sandbox/accounts per client address per hour, while ADMIN_TOKEN is unset. */
    readonly accountCreationsPerHour: number;
    readonly subscriptionsPerLocation: number;
    /** Locations of an account made with POST /sandbox/accounts. */
    readonly locationsPerAccount: number;
    /** `water-sandbox listen` streams one account holds open at once on one replica. */
    readonly openRelays: number;
    /** Bytes of one account's stored document, checked on every change (ACCOUNT_STORAGE_LIMIT). */
    readonly accountBytes: number;
    /** Faults queued in one account (MAX_FAULTS). */
    readonly faults: number;
    /** OAuth clients one account registers (MAX_OAUTH_CLIENTS). */
    readonly oauthClients: number;
    /** Deliveries of one account waiting to be sent (MAX_PENDING_DELIVERIES). */
    readonly pendingDeliveries: number;
    /** Scenario runs of one account running at once (MAX_RUNNING_RUNS). */
    readonly runningRuns: number;
    /** Dashboard event streams one account holds open at once on one replica (MAX_OPEN_STREAMS). */
    readonly openStreams: number;
    /** Event streams (dashboards and listen) open at once on one replica, all accounts together (MAX_OPEN_STREAMS_TOTAL). */
    readonly openStreamsTotal: number;
    /** Bytes written to an event stream and not yet taken by its client, past which the stream is closed (STREAM_BUFFER_LIMIT). */
    readonly streamBufferBytes: number;
    /** Login sessions the sandbox keeps in all, past which the least recently used one ends (MAX_SESSIONS). */
    readonly sessions: number;
  };
  /**
   * Whether the browser reaches the sandbox over https (PUBLIC_URL is https, or, without one, TLS
   * is on): then every cookie is Secure and named with the __Host- prefix.
   */
  readonly secureCookies: boolean;
  /** The protection variables that were set, rather than defaulted (the start-up message says which). */
  readonly protectionsSet: readonly string[];
  readonly logLevel: LogLevel;
  /** Whether a token response is also POSTed to the client's redirect URI, as production documents. */
  readonly tokenDelivery: boolean;
  /** Put every account back to the fixtures at start-up (RESET=true, or serve --reset). */
  readonly resetOnStart: boolean;
  /** A scenario to play at start-up, for demos. */
  readonly startupScenario: { readonly name: string; readonly locationId: string | null } | null;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, `must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be a whole number from ${min} to ${max}`);

const oneOf = <T extends string>(values: readonly [T, ...T[]]) =>
  z.enum(values, { error: `must be one of ${values.join(', ')}` });

const boolean = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], { error: 'must be true or false' })
  .transform((v) => ['true', '1', 'yes', 'on'].includes(v));

const baseUrl = z
  .string()
  .trim()
  .refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), 'must be an absolute http or https URL')
  .transform((v) => v.replace(/\/+$/, ''));

const nonEmpty = z.string().trim().min(1, 'must not be empty');

/** Each variable, its rule and its purpose. Values arrive as strings; unset means the default. */
const schema = z.object({
  PORT: wholeNumber(0, 65535).optional(), // listening port; 0 picks a free one
  HOST: nonEmpty.optional(), // listening address; loopback unless asked, so a laptop's sandbox is not on the network
  PUBLIC_URL: baseUrl.optional(), // base of confirmationUrl and of redirects
  DATA_DIR: nonEmpty.optional(), // folder of the embedded lowdb store, or :memory:
  DATA_FILE: nonEmpty.optional(), // a 0.1 state file to migrate into DATA_DIR
  REDIS_URL: z
    .string()
    .trim()
    .refine((v) => URL.canParse(v) && /^rediss?:$/.test(new URL(v).protocol), 'must be a redis:// or rediss:// URL such as redis://localhost:6379')
    .optional(), // state in Redis, shared by replicas
  REDIS_PREFIX: z.string().trim().regex(/^[\w.:-]{1,64}$/, 'must be 1-64 letters, digits, "_", ".", ":" or "-", such as ws: or staging:').optional(), // prefix of Redis keys
  ACCOUNT_TTL: wholeNumber(0, 315360000).optional(), // seconds idle before a generated account is deleted
  RESET: boolean.optional(), // back to the fixtures at start-up
  FIXTURES_DIR: nonEmpty.optional(), // folder of *.json fixture files
  SCENARIOS_DIR: nonEmpty.optional(), // folder of *.json scenario files
  SEED: wholeNumber(0, 4294967295).optional(), // seed of every synthetic value
  TLS: oneOf(['off', 'self-signed', 'files']).optional(), // https mode
  TLS_CERT: nonEmpty.optional(), // PEM certificate file (with TLS_KEY)
  TLS_KEY: nonEmpty.optional(), // PEM private key file (with TLS_CERT)
  ADMIN_TOKEN: nonEmpty.optional(), // guards /sandbox/admin/* and account creation
  ACCESS_TOKEN_TTL: wholeNumber(1, 31536000).optional(), // seconds, sent as expires_in
  CONFIRMATION_TOKEN_TTL: wholeNumber(1, 31536000).optional(), // seconds a confirmation token is valid
  AUTHORIZATION_CODE_TTL: wholeNumber(1, 3600).optional(), // seconds an authorization code is valid
  WEBHOOK_TIMEOUT_MS: wholeNumber(1, 600000).optional(), // per attempt
  WEBHOOK_MAX_ATTEMPTS: wholeNumber(1, 100).optional(), // attempts before a delivery is failed
  WEBHOOK_BACKOFF_MS: wholeNumber(0, 86400000).optional(), // first retry delay, doubling after
  WEBHOOK_CONCURRENCY: wholeNumber(1, 10000).optional(), // deliveries in flight at once
  WEBHOOK_LOG_LIMIT: wholeNumber(1, 1000000).optional(), // finished deliveries kept per account
  HTTP_HEADERS_TIMEOUT_MS: wholeNumber(100, 600000).optional(), // a request's headers must arrive within this, else 408 and the connection closes
  HTTP_REQUEST_TIMEOUT_MS: wholeNumber(100, 3600000).optional(), // a whole request (headers and body) must arrive within this
  HTTP_KEEP_ALIVE_TIMEOUT_MS: wholeNumber(1000, 600000).optional(), // an idle kept-alive connection is closed after this
  ENDPOINT_POLICY: oneOf(['https-only', 'https-or-loopback', 'any']).optional(),
  BLOCK_PRIVATE_ENDPOINTS: boolean.optional(), // refuse endpoints whose address is not public, at every connection
  ACCOUNT_CREATION_LIMIT: wholeNumber(0, 1000000).optional(), // POST /sandbox/accounts per client address per hour without ADMIN_TOKEN; 0 = none
  MAX_SUBSCRIPTIONS_PER_LOCATION: wholeNumber(0, 1000000).optional(), // 0 = no cap
  MAX_LOCATIONS_PER_ACCOUNT: wholeNumber(1, MAX_GENERATED_LOCATIONS).optional(), // of a generated account
  MAX_OPEN_RELAYS: wholeNumber(0, 100000).optional(), // listen streams per account at once on a replica; 0 = no cap
  ACCOUNT_STORAGE_LIMIT: wholeNumber(16384, 1073741824).optional(), // bytes of one account's stored document
  MAX_FAULTS: wholeNumber(0, 1000000).optional(), // faults queued per account; 0 = no cap
  MAX_OAUTH_CLIENTS: wholeNumber(0, 100000).optional(), // OAuth clients registered per account; 0 = no cap
  MAX_PENDING_DELIVERIES: wholeNumber(0, 10000000).optional(), // deliveries waiting to be sent per account; 0 = no cap
  MAX_RUNNING_RUNS: wholeNumber(0, 100000).optional(), // scenario runs running at once per account; 0 = no cap
  MAX_OPEN_STREAMS: wholeNumber(1, 100000).optional(), // dashboard event streams per account at once on a replica
  MAX_OPEN_STREAMS_TOTAL: wholeNumber(1, 1000000).optional(), // event streams (dashboards and listen) at once on a replica
  STREAM_BUFFER_LIMIT: wholeNumber(16384, 268435456).optional(), // unread bytes past which an event stream is closed
  MAX_SESSIONS: wholeNumber(1, 10000000).optional(), // login sessions kept in all; past it the least recently used one ends
  LOG_LEVEL: oneOf(LOG_LEVELS as unknown as [LogLevel, ...LogLevel[]]).optional(),
  TOKEN_DELIVERY: boolean.optional(), // POST token responses to the redirect URI
  SCENARIO: nonEmpty.optional(), // scenario to play at start-up
  SCENARIO_LOCATION_ID: nonEmpty.optional(), // its location (default: the demo account's first)
});

/**
 * The HTTP server's timeouts. Headers and a whole request (at most 100 kB) come in far less
 * than these from any real client, so a client that trickles them in holds a connection this
 * long at most. An idle kept-alive connection stays open longer than the idle timeout of the
 * proxies and load balancers put in front (60 s is usual), so the sandbox never closes a
 * connection the proxy is about to reuse (which the proxy would answer with a 502).
 */
export const HTTP_DEFAULTS = Object.freeze({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 65_000 });

/**
 * The limits of a local sandbox: room for a CI suite or a demo (hundreds of subscriptions on one
 * location, a thousand faults), yet nothing one account sends can take the process down. 0 = none.
 */
export const LOCAL_LIMITS: Config['limits'] = Object.freeze({
  accountCreationsPerHour: 0,
  subscriptionsPerLocation: 0,
  locationsPerAccount: MAX_GENERATED_LOCATIONS,
  openRelays: 50,
  accountBytes: 8 * 1024 * 1024,
  faults: 1000,
  oauthClients: 100,
  pendingDeliveries: 10_000,
  runningRuns: 100,
  openStreams: 20,
  openStreamsTotal: 1000,
  streamBufferBytes: 1024 * 1024,
  // Only a signed-in browser has a session: a bound all the same.
  sessions: 100_000,
});

/** The limits of a hosted sandbox: strangers share it, and its process runs in a 256 MB heap. */
export const HOSTED_LIMITS: Config['limits'] = Object.freeze({
  accountCreationsPerHour: 20,
  subscriptionsPerLocation: 20,
  locationsPerAccount: 5,
  openRelays: 5,
  accountBytes: 1024 * 1024,
  faults: 100,
  oauthClients: 20,
  pendingDeliveries: 1000,
  runningRuns: 10,
  openStreams: 10,
  openStreamsTotal: 500,
  streamBufferBytes: 256 * 1024,
  sessions: 10_000,
});

/** Finished deliveries kept per account: WEBHOOK_LOG_LIMIT's defaults. */
export const DELIVERY_LOG_LIMITS = Object.freeze({ local: 1000, hosted: 200 });

/** The variable of each limit. */
export const LIMIT_VARIABLES: Readonly<Record<keyof Config['limits'], string>> = Object.freeze({
  accountCreationsPerHour: 'ACCOUNT_CREATION_LIMIT',
  subscriptionsPerLocation: 'MAX_SUBSCRIPTIONS_PER_LOCATION',
  locationsPerAccount: 'MAX_LOCATIONS_PER_ACCOUNT',
  openRelays: 'MAX_OPEN_RELAYS',
  accountBytes: 'ACCOUNT_STORAGE_LIMIT',
  faults: 'MAX_FAULTS',
  oauthClients: 'MAX_OAUTH_CLIENTS',
  pendingDeliveries: 'MAX_PENDING_DELIVERIES',
  runningRuns: 'MAX_RUNNING_RUNS',
  openStreams: 'MAX_OPEN_STREAMS',
  openStreamsTotal: 'MAX_OPEN_STREAMS_TOTAL',
  streamBufferBytes: 'STREAM_BUFFER_LIMIT',
  sessions: 'MAX_SESSIONS',
});

/** The variables of the protections a hosted sandbox defaults to tighter values. */
export const PROTECTION_VARIABLES: readonly string[] = ['BLOCK_PRIVATE_ENDPOINTS', 'ENDPOINT_POLICY', ...Object.values(LIMIT_VARIABLES), 'WEBHOOK_LOG_LIMIT'];

/** localhost, *.localhost, 127.0.0.0/8 and ::1: a PUBLIC_URL there is reached from this machine only. */
function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(host) || host === '::1';
}

/** Every variable loadConfig reads (`water-sandbox serve` has a flag for each). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(schema.shape);

/**
 * Reads the configuration from environment variables. Pure apart from `fileExists`; every
 * problem is collected and reported at once in a ConfigError. FIXTURES_DIR and SCENARIOS_DIR
 * default to ./fixtures and ./scenarios, or to the package's own folders (under `packageRoot`)
 * where the working directory has none: `npx water-sandbox` anywhere runs the demo.
 */
export function loadConfig(env: Record<string, string | undefined>, fileExists: (path: string) => boolean = existsSync, packageRoot: string = PACKAGE_ROOT): Config {
  // An empty variable counts as unset, as shells and compose files often produce them.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  // Each variable is parsed on its own, so the rules that combine variables still see the valid ones.
  const problems: string[] = [];
  const valid: Record<string, unknown> = {};
  for (const [key, rule] of Object.entries(schema.shape)) {
    if (present[key] === undefined) continue;
    const parsed = rule.safeParse(present[key]);
    if (parsed.success) valid[key] = parsed.data;
    else problems.push(...parsed.error.issues.map((issue) => `${key}=${JSON.stringify(present[key])}: ${issue.message}`));
  }
  const v = valid as z.infer<typeof schema>;

  const tls = resolveTls(v, problems, fileExists);
  const headersTimeoutMs = v.HTTP_HEADERS_TIMEOUT_MS ?? HTTP_DEFAULTS.headersTimeoutMs;
  const requestTimeoutMs = v.HTTP_REQUEST_TIMEOUT_MS ?? Math.max(HTTP_DEFAULTS.requestTimeoutMs, headersTimeoutMs);
  if (requestTimeoutMs < headersTimeoutMs) problems.push(`HTTP_REQUEST_TIMEOUT_MS=${requestTimeoutMs} is shorter than HTTP_HEADERS_TIMEOUT_MS=${headersTimeoutMs}: a request's headers are part of it`);
  if (v.SCENARIO_LOCATION_ID && !v.SCENARIO) problems.push('SCENARIO_LOCATION_ID is set but SCENARIO is not: name the scenario to play');
  if (problems.length > 0) throw new ConfigError(problems);
  const hosted = v.PUBLIC_URL !== undefined && !isLoopbackHost(new URL(v.PUBLIC_URL).hostname);

  return Object.freeze({
    port: v.PORT ?? 8080,
    host: v.HOST ?? '127.0.0.1',
    publicUrl: v.PUBLIC_URL ?? null,
    ...dataLocation(v.DATA_DIR, v.DATA_FILE),
    redisUrl: v.REDIS_URL ?? null,
    redisPrefix: v.REDIS_PREFIX ?? 'ws:',
    accountTtlSeconds: v.ACCOUNT_TTL ?? 2592000,
    resetOnStart: v.RESET ?? false,
    fixturesDir: v.FIXTURES_DIR ?? defaultFolder('fixtures', packageRoot, fileExists),
    scenariosDir: v.SCENARIOS_DIR ?? defaultFolder('scenarios', packageRoot, fileExists),
    seed: v.SEED ?? 1,
    tls,
    adminToken: v.ADMIN_TOKEN ?? null,
    accessTokenTtlSeconds: v.ACCESS_TOKEN_TTL ?? 3600,
    confirmationTokenTtlSeconds: v.CONFIRMATION_TOKEN_TTL ?? 600,
    authorizationCodeTtlSeconds: v.AUTHORIZATION_CODE_TTL ?? 300,
    http: Object.freeze({ headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs: v.HTTP_KEEP_ALIVE_TIMEOUT_MS ?? HTTP_DEFAULTS.keepAliveTimeoutMs }),
    webhook: Object.freeze({
      timeoutMs: v.WEBHOOK_TIMEOUT_MS ?? 5000,
      maxAttempts: v.WEBHOOK_MAX_ATTEMPTS ?? 5,
      backoffMs: v.WEBHOOK_BACKOFF_MS ?? 1000,
      concurrency: v.WEBHOOK_CONCURRENCY ?? 64,
      logLimit: v.WEBHOOK_LOG_LIMIT ?? (hosted ? DELIVERY_LOG_LIMITS.hosted : DELIVERY_LOG_LIMITS.local),
    }),
    endpointPolicy: v.ENDPOINT_POLICY ?? (hosted ? 'https-only' : 'https-or-loopback'),
    blockPrivateEndpoints: v.BLOCK_PRIVATE_ENDPOINTS ?? hosted,
    hosted,
    limits: resolveLimits(v, hosted ? HOSTED_LIMITS : LOCAL_LIMITS),
    secureCookies: v.PUBLIC_URL === undefined ? tls.mode !== 'off' : new URL(v.PUBLIC_URL).protocol === 'https:',
    protectionsSet: Object.freeze(PROTECTION_VARIABLES.filter((name) => present[name] !== undefined)),
    logLevel: v.LOG_LEVEL ?? 'info',
    tokenDelivery: v.TOKEN_DELIVERY ?? true,
    startupScenario: v.SCENARIO ? Object.freeze({ name: v.SCENARIO, locationId: v.SCENARIO_LOCATION_ID ?? null }) : null,
  });
}

/** Each limit: its variable when set, else the default of a hosted or a local sandbox. */
function resolveLimits(v: Record<string, unknown>, defaults: Config['limits']): Config['limits'] {
  const limits = { ...defaults };
  for (const [key, variable] of Object.entries(LIMIT_VARIABLES) as [keyof Config['limits'], string][]) {
    const value = v[variable];
    if (typeof value === 'number') limits[key] = value;
  }
  return Object.freeze(limits);
}

/**
 * The protections in force and why, for the start-up message: each setting with its value and
 * whether it was set or is the hosted or local default.
 */
export function describeProtections(config: Config, publicUrl: string): string[] {
  const { limits } = config;
  const source = (name: string): string => (config.protectionsSet.includes(name) ? 'set' : config.hosted ? 'hosted default' : 'local default');
  const cap = (n: number, what: string): string => (n === 0 ? 'no cap' : `${n} ${what}`);
  const kib = (bytes: number): string => (bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${Math.round(bytes / 1024)} KiB`);
  const creation =
    config.adminToken !== null
      ? 'account creation needs ADMIN_TOKEN'
      : limits.accountCreationsPerHour === 0
        ? 'account creation open, no rate limit'
        : `${limits.accountCreationsPerHour} new accounts an hour per client address`;
  const rows: [string, string, string][] = [
    ['BLOCK_PRIVATE_ENDPOINTS', String(config.blockPrivateEndpoints), config.blockPrivateEndpoints ? 'webhooks reach public addresses only, checked at every connection' : 'webhooks may reach this machine and its network'],
    ['ENDPOINT_POLICY', config.endpointPolicy, config.endpointPolicy === 'https-only' ? 'subscription endpoints must be https' : config.endpointPolicy === 'any' ? 'any http(s) endpoint' : 'http only on loopback'],
    ['ACCOUNT_CREATION_LIMIT', String(limits.accountCreationsPerHour), creation],
    ['MAX_SUBSCRIPTIONS_PER_LOCATION', String(limits.subscriptionsPerLocation), cap(limits.subscriptionsPerLocation, 'subscriptions per location')],
    ['MAX_LOCATIONS_PER_ACCOUNT', String(limits.locationsPerAccount), `${limits.locationsPerAccount} locations per generated account`],
    ['MAX_OPEN_RELAYS', String(limits.openRelays), cap(limits.openRelays, 'listen streams per account on each replica')],
    ['MAX_OPEN_STREAMS', String(limits.openStreams), `${limits.openStreams} dashboard streams per account on each replica`],
    ['MAX_OPEN_STREAMS_TOTAL', String(limits.openStreamsTotal), `${limits.openStreamsTotal} event streams on each replica, all accounts together`],
    ['STREAM_BUFFER_LIMIT', String(limits.streamBufferBytes), `a stream whose client leaves ${kib(limits.streamBufferBytes)} unread is closed`],
    ['ACCOUNT_STORAGE_LIMIT', String(limits.accountBytes), `${kib(limits.accountBytes)} stored per account`],
    ['MAX_FAULTS', String(limits.faults), cap(limits.faults, 'faults per account')],
    ['MAX_OAUTH_CLIENTS', String(limits.oauthClients), cap(limits.oauthClients, 'OAuth clients per account')],
    ['MAX_PENDING_DELIVERIES', String(limits.pendingDeliveries), cap(limits.pendingDeliveries, 'deliveries waiting per account')],
    ['MAX_RUNNING_RUNS', String(limits.runningRuns), cap(limits.runningRuns, 'scenario runs running per account')],
    ['WEBHOOK_LOG_LIMIT', String(config.webhook.logLimit), `${config.webhook.logLimit} finished deliveries kept per account`],
    ['MAX_SESSIONS', String(limits.sessions), `${limits.sessions} login sessions in all; the least recently used ends first`],
  ];
  const host = new URL(publicUrl).host;
  if (!config.hosted && config.protectionsSet.length === 0) {
    return [`  security    local (PUBLIC_URL ${host} is loopback): webhooks may reach this machine, limits are a local sandbox's generous ones; a PUBLIC_URL partners use elsewhere turns the protections on`];
  }
  const why = config.hosted
    ? `hosted: PUBLIC_URL ${host} is not loopback, so the protections are on (a setting you give wins)`
    : `local: PUBLIC_URL ${host} is loopback; the protections set are on`;
  const lines = [`  security    ${why}`];
  if (config.hosted && config.adminToken === null) lines.push('              ADMIN_TOKEN unset: global admin operations are off, account creation is open to anyone (rate limited)');
  const width = Math.max(...rows.map(([name, value]) => `${name}=${value}`.length));
  for (const [name, value, meaning] of rows) lines.push(`              ${`${name}=${value}`.padEnd(width)}  ${meaning} (${source(name)})`);
  return lines;
}

/** ./<name> when the working directory has it, else the package's own (the shipped demo data). */
function defaultFolder(name: string, packageRoot: string, fileExists: (path: string) => boolean): string {
  const local = `./${name}`;
  return fileExists(local) ? local : join(packageRoot, name);
}

/**
 * DATA_DIR and the 0.1 file. Version 0.1 took DATA_FILE=:memory: for a store in memory; that
 * still works, so CI configurations written for 0.1 keep running.
 */
function dataLocation(dataDir: string | undefined, dataFile: string | undefined): { dataDir: string; legacyDataFile: string | null } {
  if (dataFile === ':memory:') return { dataDir: dataDir ?? ':memory:', legacyDataFile: null };
  const dir = dataDir ?? './data';
  return { dataDir: dir, legacyDataFile: dir === ':memory:' ? null : (dataFile ?? './data/sandbox.json') };
}

function resolveTls(
  v: { TLS?: 'off' | 'self-signed' | 'files' | undefined; TLS_CERT?: string | undefined; TLS_KEY?: string | undefined },
  problems: string[],
  fileExists: (path: string) => boolean,
): TlsConfig {
  const { TLS_CERT: certFile, TLS_KEY: keyFile } = v;
  const filesGiven = certFile !== undefined || keyFile !== undefined;
  if (v.TLS === 'off' && filesGiven) problems.push('TLS=off but TLS_CERT or TLS_KEY is set: unset them or drop TLS=off');
  if (v.TLS === 'self-signed' && filesGiven) problems.push('TLS=self-signed generates its own certificate: unset TLS_CERT and TLS_KEY, or drop TLS');
  if (v.TLS === 'files' && !filesGiven) problems.push('TLS=files needs TLS_CERT and TLS_KEY');
  if (v.TLS === 'self-signed') return { mode: 'self-signed' };
  if (!filesGiven) return { mode: 'off' };
  if (certFile === undefined) problems.push('TLS_KEY is set without TLS_CERT: give both files');
  if (keyFile === undefined) problems.push('TLS_CERT is set without TLS_KEY: give both files');
  if (certFile !== undefined && !fileExists(certFile)) problems.push(`TLS_CERT=${JSON.stringify(certFile)}: file not found`);
  if (keyFile !== undefined && !fileExists(keyFile)) problems.push(`TLS_KEY=${JSON.stringify(keyFile)}: file not found`);
  return { mode: 'files', certFile: certFile ?? '', keyFile: keyFile ?? '' };
}
