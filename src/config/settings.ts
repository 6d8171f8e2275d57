import { z } from 'zod';

import { MAX_GENERATED_LOCATIONS } from '../accounts/bounds.js';
import { LOG_LEVELS, type LogLevel } from '../core/log-levels.js';

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
export const settingsSchema = z.object({
  PORT: wholeNumber(0, 65535).optional(), // listening port; 0 picks a free one
  HOST: nonEmpty.optional(), // listening address; loopback unless asked, so a laptop's sandbox is not on the network
  PUBLIC_URL: baseUrl.optional(), // base of confirmationUrl and of redirects
  DATA_DIR: nonEmpty.optional(), // folder of the embedded lowdb store, or :memory:
  DATA_FILE: nonEmpty.optional(), // a 0.1 state file to migrate into DATA_DIR
  REDIS_URL: z
    .string()
    .trim()
    .refine(
      (v) => URL.canParse(v) && /^rediss?:$/.test(new URL(v).protocol),
      'must be a redis:// or rediss:// URL such as redis://localhost:6379',
    )
    .optional(), // state in Redis, shared by replicas
  REDIS_PREFIX: z
    .string()
    .trim()
    .regex(/^[\w.:-]{1,64}$/, 'must be 1-64 letters, digits, "_", ".", ":" or "-", such as ws: or staging:')
    .optional(), // prefix of Redis keys
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
  ACCOUNT_CREATION_PREFIX_LIMIT: wholeNumber(0, 1000000).optional(), // the same per IPv6 /48 (65,536 /64s); 0 = none
  MAX_ACCOUNTS: wholeNumber(0, 100000000).optional(), // accounts stored in all; past it POST /sandbox/accounts is a 507; 0 = no cap
  SIGN_IN_LIMIT: wholeNumber(0, 1000000).optional(), // sign-ins per client address per minute, succeeded or not; 0 = none
  METRICS_OPEN: boolean.optional(), // /metrics answers without ADMIN_TOKEN
  MAX_SUBSCRIPTIONS_PER_LOCATION: wholeNumber(0, 1000000).optional(), // 0 = no cap
  MAX_LOCATIONS_PER_ACCOUNT: wholeNumber(1, MAX_GENERATED_LOCATIONS).optional(), // of a generated account
  MAX_OPEN_RELAYS: wholeNumber(0, 100000).optional(), // listen streams per account at once on a replica; 0 = no cap
  ACCOUNT_STORAGE_LIMIT: wholeNumber(16384, 1073741824).optional(), // bytes of one account's stored document
  MAX_FAULTS: wholeNumber(0, 1000000).optional(), // faults queued per account; 0 = no cap
  MAX_OAUTH_CLIENTS: wholeNumber(0, 100000).optional(), // OAuth clients registered per account; 0 = no cap
  MAX_CONNECTED_APPS: wholeNumber(0, 100000).optional(), // applications of other accounts an account's users allowed; 0 = no cap
  MAX_PENDING_DELIVERIES: wholeNumber(0, 10000000).optional(), // deliveries waiting to be sent per account; 0 = no cap
  MAX_RUNNING_RUNS: wholeNumber(0, 100000).optional(), // scenario runs running at once per account; 0 = no cap
  MAX_OPEN_STREAMS: wholeNumber(1, 100000).optional(), // dashboard event streams per account at once on a replica
  MAX_OPEN_STREAMS_TOTAL: wholeNumber(1, 1000000).optional(), // event streams (dashboards and listen) at once on a replica
  STREAM_BUFFER_LIMIT: wholeNumber(16384, 268435456).optional(), // unread bytes past which an event stream is closed
  MAX_SESSIONS: wholeNumber(1, 10000000).optional(), // login sessions kept in all; past it the least recently used one ends
  MAX_CONCURRENT_REQUESTS: wholeNumber(0, 100000).optional(), // requests of one client address or credential worked on at once on a replica; 0 = no gate
  MAX_QUEUED_REQUESTS: wholeNumber(0, 100000).optional(), // requests of one client waiting their turn on a replica; past it a 429
  ACCOUNT_WRITE_RATE: wholeNumber(0, 1073741824).optional(), // bytes a second one account's file is written at, at most (embedded store); 0 = no limit
  MAX_DEMO_LINKS: wholeNumber(1, 10000).optional(), // live audience links of the presenter view per account
  MAX_DEMO_VIEWERS: wholeNumber(1, 100000).optional(), // presenter-view event streams per account at once on a replica (the presenter's and the audience's)
  MAX_MCP_WAITS: wholeNumber(1, 100000).optional(), // MCP wait_for_delivery calls of one account waiting at once on a replica
  MAX_MCP_WAIT_SECONDS: wholeNumber(1, 600).optional(), // the longest one MCP wait_for_delivery call waits
  LOG_LEVEL: oneOf(LOG_LEVELS as unknown as [LogLevel, ...LogLevel[]]).optional(),
  TOKEN_DELIVERY: boolean.optional(), // POST token responses to the redirect URI
  SCENARIO: nonEmpty.optional(), // scenario to play at start-up
  SCENARIO_LOCATION_ID: nonEmpty.optional(), // its location (default: the demo account's first)
});

/** The settings as parsed: each variable that was set and valid, in its type. */
export type Settings = z.infer<typeof settingsSchema>;

/** Every variable loadConfig reads (`water-sandbox serve` has a flag for each). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(settingsSchema.shape);
