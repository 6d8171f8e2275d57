import { Option, type Command } from 'commander';

import type { Config, ConfigError } from '../config.js';
import { CliError, type CliContext } from './context.js';

// The server's modules are loaded by `serve` only, so client commands start quickly.

/**
 * The V8 flags `serve` runs with: `npm start` and the Dockerfile's CMD pass the same (a test
 * checks they agree). The sandbox lives in far less, and V8 left alone grows its heap lazily.
 * The semi-space size and the old generation's starting size trade memory for speed; docs/cli.md
 * (Memory) gives the figures.
 */
export const SERVE_V8_FLAGS = [
  '--max-old-space-size=256',
  '--max-semi-space-size=16',
  '--initial-old-space-size=64',
] as const;

interface ServeFlag {
  variable: string;
  /** `<value>` for a value, `[bool]` for a switch that may take true/false. */
  value: string;
  description: string;
}

/**
 * Every variable of the configuration (src/config.ts), as a flag: PORT is --port, DATA_DIR is
 * --data-dir. Each is written as its help shows it, `VARIABLE <value>` (`[bool]` for a switch
 * that may take true/false), with its description.
 */
const FLAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  'PORT <port>': 'listening port; 0 takes a free one (default 8080)',
  'HOST <address>': 'listening address (default 127.0.0.1: this machine only; 0.0.0.0 for every interface)',
  'PUBLIC_URL <url>':
    'base URL of confirmation URLs, redirects and relay endpoints (default http://localhost:<port>); a host that is not loopback makes the sandbox hosted: protections on',
  'DATA_DIR <dir>': 'folder of the embedded store, or :memory: (default ./data)',
  'DATA_FILE <file>': 'a version 0.1 state file to migrate into DATA_DIR (default ./data/sandbox.json)',
  'REDIS_URL <url>': 'keep all state in Redis, shared by replicas (e.g. redis://localhost:6379)',
  'REDIS_PREFIX <prefix>': 'prefix of every Redis key and channel, so sandboxes can share a Redis (default ws:)',
  'ACCOUNT_TTL <seconds>': 'idle seconds before a generated account is deleted; 0 = never (default 2592000)',
  'RESET [bool]': 'put every account back to the fixtures at start-up',
  'FIXTURES_DIR <dir>': "fixture files (default ./fixtures, or the package's own)",
  'SCENARIOS_DIR <dir>': "scenario files (default ./scenarios, or the package's own)",
  'SEED <n>': 'seed of all synthetic data (default 1)',
  'TLS <mode>': 'off, self-signed, or files (with --tls-cert and --tls-key)',
  'TLS_CERT <file>': 'PEM certificate file',
  'TLS_KEY <file>': 'PEM private key file',
  'ADMIN_TOKEN <token>': 'require it for /sandbox/admin/* and account creation',
  'ACCESS_TOKEN_TTL <seconds>': 'access token lifetime, sent as expires_in (default 3600)',
  'CONFIRMATION_TOKEN_TTL <seconds>': 'subscription confirmation token lifetime (default 600)',
  'AUTHORIZATION_CODE_TTL <seconds>': 'authorization code lifetime (default 300)',
  'WEBHOOK_TIMEOUT_MS <ms>': 'per-attempt timeout of a webhook (default 5000)',
  'WEBHOOK_MAX_ATTEMPTS <n>': 'attempts before a delivery fails (default 5)',
  'WEBHOOK_BACKOFF_MS <ms>': 'first retry delay, doubling after (default 1000)',
  'WEBHOOK_CONCURRENCY <n>': 'deliveries in flight at once (default 64)',
  'WEBHOOK_LOG_LIMIT <n>': 'finished deliveries kept per account (default 1000; 200 when hosted)',
  'HTTP_HEADERS_TIMEOUT_MS <ms>': "a request's headers must arrive within this, else 408 (default 10000)",
  'HTTP_REQUEST_TIMEOUT_MS <ms>': 'a whole request, headers and body, must arrive within this (default 30000)',
  'HTTP_KEEP_ALIVE_TIMEOUT_MS <ms>':
    'an idle kept-alive connection is closed after this; keep it above the idle timeout of a proxy in front (default 65000)',
  'ENDPOINT_POLICY <policy>':
    'https-only, https-or-loopback or any (default https-or-loopback; https-only when hosted)',
  'BLOCK_PRIVATE_ENDPOINTS [bool]':
    'refuse endpoints whose address is not public, checked at every connection (default false; true when hosted)',
  'ACCOUNT_CREATION_LIMIT <n>':
    'accounts per client address per hour without ADMIN_TOKEN; 0 = none (default 0; 20 when hosted)',
  'ACCOUNT_CREATION_PREFIX_LIMIT <n>':
    'accounts per IPv6 /48 per hour without ADMIN_TOKEN, beside the per-address limit; 0 = none (default 0; 60 when hosted)',
  'MAX_ACCOUNTS <n>':
    'accounts stored in all; past it account creation answers 507; 0 = no cap (default 0; 10000 when hosted)',
  'SIGN_IN_LIMIT <n>': 'sign-ins per client address per minute, succeeded or not; 0 = none (default 0; 60 when hosted)',
  'METRICS_OPEN [bool]':
    '/metrics answers without ADMIN_TOKEN (default true on a local sandbox without ADMIN_TOKEN; false when hosted: off until ADMIN_TOKEN is set)',
  'MAX_SUBSCRIPTIONS_PER_LOCATION <n>': 'subscriptions per location; 0 = no cap (default 0; 20 when hosted)',
  'MAX_LOCATIONS_PER_ACCOUNT <n>': 'locations of a generated account, 1-10 (default 10; 5 when hosted)',
  'MAX_OPEN_RELAYS <n>': 'listen streams per account at once on a replica; 0 = no cap (default 50; 5 when hosted)',
  'MAX_OPEN_STREAMS <n>': 'dashboard event streams per account at once on a replica (default 20; 10 when hosted)',
  'MAX_OPEN_STREAMS_TOTAL <n>':
    'event streams (dashboards and listen) at once on a replica, all accounts together (default 1000; 500 when hosted)',
  'STREAM_BUFFER_LIMIT <bytes>':
    'an event stream whose client leaves this much unread is closed (default 1048576; 262144 when hosted)',
  'ACCOUNT_STORAGE_LIMIT <bytes>':
    "bytes one account's stored data may take, checked on every change (default 8388608; 1048576 when hosted)",
  'MAX_FAULTS <n>': 'faults queued per account; 0 = no cap (default 1000; 100 when hosted)',
  'MAX_OAUTH_CLIENTS <n>': 'OAuth clients registered per account; 0 = no cap (default 100; 20 when hosted)',
  'MAX_CONNECTED_APPS <n>':
    "applications of other accounts an account's users allowed; 0 = no cap (default 100; 20 when hosted)",
  'MAX_PENDING_DELIVERIES <n>':
    'webhook deliveries waiting to be sent per account; 0 = no cap (default 10000; 1000 when hosted)',
  'MAX_RUNNING_RUNS <n>': 'scenario runs running at once per account; 0 = no cap (default 100; 10 when hosted)',
  'MAX_SESSIONS <n>':
    "login sessions kept in all; past it the biggest holder's (client address's) least recently used ends (default 100000; 10000 when hosted)",
  'MAX_CONCURRENT_REQUESTS <n>':
    'requests of one client (an address, a credential) worked on at once on a replica, the rest wait their turn; 0 = no gate (default 0; 4 when hosted)',
  'MAX_QUEUED_REQUESTS <n>':
    'requests of one client waiting their turn on a replica; past it a 429 (default 1000; 64 when hosted)',
  'ACCOUNT_WRITE_RATE <bytes>':
    "bytes a second one account's file is written at, at most, on the embedded store; 0 = no limit (default 0; 8388608 when hosted)",
  'MAX_DEMO_LINKS <n>': 'live audience links of the presenter view per account (default 20; 5 when hosted)',
  'MAX_DEMO_VIEWERS <n>':
    'presenter-view event streams (the presenter and the audience) per account at once on a replica (default 300; 60 when hosted)',
  'MAX_MCP_WAITS <n>':
    'MCP wait_for_delivery calls of one account waiting at once on a replica (default 20; 4 when hosted)',
  'MAX_MCP_WAIT_SECONDS <seconds>': 'the longest one MCP wait_for_delivery call waits (default 50; 20 when hosted)',
  'TOKEN_DELIVERY [bool]': "also POST token responses to the client's redirect URI (default true)",
  'SCENARIO <name>': 'play this scenario at start-up (demos)',
  'SCENARIO_LOCATION_ID <id>': "its location (default the demo account's first)",
  'LOG_LEVEL <level>': 'debug, info, warn, error or silent (default info)',
};

export const SERVE_FLAGS: readonly ServeFlag[] = Object.entries(FLAG_DESCRIPTIONS).map(([usage, description]) => {
  const [variable = usage, value = ''] = usage.split(' ');
  return { variable, value, description };
});

export const flagOf = (variable: string): string => `--${variable.toLowerCase().replace(/_/g, '-')}`;
const optionKeyOf = (variable: string): string =>
  variable.toLowerCase().replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** Adds the flags to `serve`; each one's help names its variable. */
export function addServeFlags(command: Command): Command {
  for (const flag of SERVE_FLAGS)
    command.addOption(new Option(`${flagOf(flag.variable)} ${flag.value}`, `${flag.description} [${flag.variable}]`));
  return command;
}

/** The flags given, as the variables they stand for (a switch given alone is "true"). Values are checked by loadConfig. */
export function variablesFromFlags(options: Record<string, unknown>): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const { variable } of SERVE_FLAGS) {
    const value = options[optionKeyOf(variable)];
    if (typeof value === 'string' || value === true) variables[variable] = value === true ? 'true' : value;
  }
  return variables;
}

/** loadConfig's problems, with the flag named in front of each one that came from a flag. */
function configProblem(error: ConfigError, fromFlags: Record<string, string>): CliError {
  const problems = error.problems.map((problem) => {
    const variable = Object.keys(fromFlags).find((v) => problem.startsWith(`${v}=`) || problem.startsWith(`${v} `));
    return `  - ${variable === undefined ? '' : `${flagOf(variable)}: `}${problem}`;
  });
  return new CliError(
    `Invalid configuration:\n${problems.join('\n')}\n(run water-sandbox serve --help for the flags)`,
    2,
  );
}

/** Whether the process already runs with a heap cap (from its command line or NODE_OPTIONS): then `serve` leaves it as it is. */
export function hasHeapFlags(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  return [...execArgv, ...(nodeOptions ?? '').split(/\s+/)].some((arg) =>
    /^--max[-_]old[-_]space[-_]size(=|$)/.test(arg),
  );
}

/** The configuration of `serve`: the environment, overridden by the flags, validated by loadConfig (exit 2 on a bad value). */
export async function serveConfig(options: Record<string, unknown>, env: CliContext['env']): Promise<Config> {
  const { ConfigError, loadConfig } = await import('../config.js');
  const fromFlags = variablesFromFlags(options);
  try {
    return loadConfig({ ...env, ...fromFlags });
  } catch (error) {
    if (error instanceof ConfigError) throw configProblem(error, fromFlags);
    throw error;
  }
}

/** A start-up failure as one readable message; only unexpected errors carry a stack. */
async function describeStartupError(error: unknown): Promise<string> {
  const [{ ScenarioError }, { FixtureError }, { StoreFileError }] = await Promise.all([
    import('../scenarios/index.js'),
    import('../store/fixtures.js'),
    import('../store/open-store.js'),
  ]);
  if (error instanceof FixtureError || error instanceof StoreFileError || error instanceof ScenarioError)
    return error.message;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    return `${(error as Error).message}: another process uses this port; stop it or set --port (PORT; 0 picks a free port)`;
  if (code === 'EACCES')
    return `${(error as Error).message}: not allowed to listen there; pick a --port above 1023 or another --host`;
  return (error as Error).stack ?? String(error);
}

/**
 * `serve`: runs the sandbox until SIGINT or SIGTERM. Without a heap cap it first replaces
 * itself with `node <SERVE_V8_FLAGS> ...` where Node can (see CliContext.reexec).
 */
export async function runServe(options: Record<string, unknown>, ctx: CliContext): Promise<number> {
  const config = await serveConfig(options, ctx.env);
  if (!hasHeapFlags(ctx.execArgv, ctx.env['NODE_OPTIONS'])) ctx.reexec(SERVE_V8_FLAGS);
  const [{ createLogger, flushLogger }, { describeStartup, startSandbox }] = await Promise.all([
    import('../core/logger.js'),
    import('../server.js'),
  ]);
  const logger = createLogger(config.logLevel);
  let sandbox;
  try {
    sandbox = await startSandbox(config, { logger });
  } catch (error) {
    throw new CliError(`water-sandbox failed to start.\n${await describeStartupError(error)}`);
  }
  ctx.stderr(describeStartup(sandbox.report));
  const signal = await ctx.untilStopSignal();
  logger.info('stopping', { signal });
  try {
    await sandbox.stop();
  } catch (error) {
    logger.error('stopping failed', { err: error });
    return 1;
  }
  logger.info('stopped');
  await flushLogger(logger);
  return 0;
}
