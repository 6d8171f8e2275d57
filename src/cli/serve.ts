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
  '--max-semi-space-size=8',
  '--initial-old-space-size=64',
] as const;

interface ServeFlag {
  variable: string;
  /** `<value>` for a value, `[bool]` for a switch that may take true/false. */
  value: string;
  description: string;
}

/** Every variable of the configuration (src/config.ts), as a flag: PORT is --port, DATA_DIR is --data-dir. */
export const SERVE_FLAGS: readonly ServeFlag[] = [
  { variable: 'PORT', value: '<port>', description: 'listening port; 0 takes a free one (default 8080)' },
  {
    variable: 'HOST',
    value: '<address>',
    description: 'listening address (default 127.0.0.1: this machine only; 0.0.0.0 for every interface)',
  },
  {
    variable: 'PUBLIC_URL',
    value: '<url>',
    description:
      'base URL of confirmation URLs, redirects and relay endpoints (default http://localhost:<port>); a host that is not loopback makes the sandbox hosted: protections on',
  },
  { variable: 'DATA_DIR', value: '<dir>', description: 'folder of the embedded store, or :memory: (default ./data)' },
  {
    variable: 'DATA_FILE',
    value: '<file>',
    description: 'a version 0.1 state file to migrate into DATA_DIR (default ./data/sandbox.json)',
  },
  {
    variable: 'REDIS_URL',
    value: '<url>',
    description: 'keep all state in Redis, shared by replicas (e.g. redis://localhost:6379)',
  },
  {
    variable: 'REDIS_PREFIX',
    value: '<prefix>',
    description: 'prefix of every Redis key and channel, so sandboxes can share a Redis (default ws:)',
  },
  {
    variable: 'ACCOUNT_TTL',
    value: '<seconds>',
    description: 'idle seconds before a generated account is deleted; 0 = never (default 2592000)',
  },
  { variable: 'RESET', value: '[bool]', description: 'put every account back to the fixtures at start-up' },
  { variable: 'FIXTURES_DIR', value: '<dir>', description: "fixture files (default ./fixtures, or the package's own)" },
  {
    variable: 'SCENARIOS_DIR',
    value: '<dir>',
    description: "scenario files (default ./scenarios, or the package's own)",
  },
  { variable: 'SEED', value: '<n>', description: 'seed of all synthetic data (default 1)' },
  { variable: 'TLS', value: '<mode>', description: 'off, self-signed, or files (with --tls-cert and --tls-key)' },
  { variable: 'TLS_CERT', value: '<file>', description: 'PEM certificate file' },
  { variable: 'TLS_KEY', value: '<file>', description: 'PEM private key file' },
  { variable: 'ADMIN_TOKEN', value: '<token>', description: 'require it for /sandbox/admin/* and account creation' },
  {
    variable: 'ACCESS_TOKEN_TTL',
    value: '<seconds>',
    description: 'access token lifetime, sent as expires_in (default 3600)',
  },
  {
    variable: 'CONFIRMATION_TOKEN_TTL',
    value: '<seconds>',
    description: 'subscription confirmation token lifetime (default 600)',
  },
  { variable: 'AUTHORIZATION_CODE_TTL', value: '<seconds>', description: 'authorization code lifetime (default 300)' },
  { variable: 'WEBHOOK_TIMEOUT_MS', value: '<ms>', description: 'per-attempt timeout of a webhook (default 5000)' },
  { variable: 'WEBHOOK_MAX_ATTEMPTS', value: '<n>', description: 'attempts before a delivery fails (default 5)' },
  { variable: 'WEBHOOK_BACKOFF_MS', value: '<ms>', description: 'first retry delay, doubling after (default 1000)' },
  { variable: 'WEBHOOK_CONCURRENCY', value: '<n>', description: 'deliveries in flight at once (default 64)' },
  {
    variable: 'WEBHOOK_LOG_LIMIT',
    value: '<n>',
    description: 'finished deliveries kept per account (default 1000; 200 when hosted)',
  },
  {
    variable: 'HTTP_HEADERS_TIMEOUT_MS',
    value: '<ms>',
    description: "a request's headers must arrive within this, else 408 (default 10000)",
  },
  {
    variable: 'HTTP_REQUEST_TIMEOUT_MS',
    value: '<ms>',
    description: 'a whole request, headers and body, must arrive within this (default 30000)',
  },
  {
    variable: 'HTTP_KEEP_ALIVE_TIMEOUT_MS',
    value: '<ms>',
    description:
      'an idle kept-alive connection is closed after this; keep it above the idle timeout of a proxy in front (default 65000)',
  },
  {
    variable: 'ENDPOINT_POLICY',
    value: '<policy>',
    description: 'https-only, https-or-loopback or any (default https-or-loopback; https-only when hosted)',
  },
  {
    variable: 'BLOCK_PRIVATE_ENDPOINTS',
    value: '[bool]',
    description:
      'refuse endpoints whose address is not public, checked at every connection (default false; true when hosted)',
  },
  {
    variable: 'ACCOUNT_CREATION_LIMIT',
    value: '<n>',
    description: 'accounts per client address per hour without ADMIN_TOKEN; 0 = none (default 0; 20 when hosted)',
  },
  {
    variable: 'MAX_SUBSCRIPTIONS_PER_LOCATION',
    value: '<n>',
    description: 'subscriptions per location; 0 = no cap (default 0; 20 when hosted)',
  },
  {
    variable: 'MAX_LOCATIONS_PER_ACCOUNT',
    value: '<n>',
    description: 'locations of a generated account, 1-10 (default 10; 5 when hosted)',
  },
  {
    variable: 'MAX_OPEN_RELAYS',
    value: '<n>',
    description: 'listen streams per account at once on a replica; 0 = no cap (default 50; 5 when hosted)',
  },
  {
    variable: 'MAX_OPEN_STREAMS',
    value: '<n>',
    description: 'dashboard event streams per account at once on a replica (default 20; 10 when hosted)',
  },
  {
    variable: 'MAX_OPEN_STREAMS_TOTAL',
    value: '<n>',
    description:
      'event streams (dashboards and listen) at once on a replica, all accounts together (default 1000; 500 when hosted)',
  },
  {
    variable: 'STREAM_BUFFER_LIMIT',
    value: '<bytes>',
    description: 'an event stream whose client leaves this much unread is closed (default 1048576; 262144 when hosted)',
  },
  {
    variable: 'ACCOUNT_STORAGE_LIMIT',
    value: '<bytes>',
    description:
      "bytes one account's stored data may take, checked on every change (default 8388608; 1048576 when hosted)",
  },
  {
    variable: 'MAX_FAULTS',
    value: '<n>',
    description: 'faults queued per account; 0 = no cap (default 1000; 100 when hosted)',
  },
  {
    variable: 'MAX_OAUTH_CLIENTS',
    value: '<n>',
    description: 'OAuth clients registered per account; 0 = no cap (default 100; 20 when hosted)',
  },
  {
    variable: 'MAX_PENDING_DELIVERIES',
    value: '<n>',
    description: 'webhook deliveries waiting to be sent per account; 0 = no cap (default 10000; 1000 when hosted)',
  },
  {
    variable: 'MAX_RUNNING_RUNS',
    value: '<n>',
    description: 'scenario runs running at once per account; 0 = no cap (default 100; 10 when hosted)',
  },
  {
    variable: 'MAX_SESSIONS',
    value: '<n>',
    description: 'login sessions kept in all; past it the least recently used ends (default 100000; 10000 when hosted)',
  },
  {
    variable: 'TOKEN_DELIVERY',
    value: '[bool]',
    description: "also POST token responses to the client's redirect URI (default true)",
  },
  { variable: 'SCENARIO', value: '<name>', description: 'play this scenario at start-up (demos)' },
  { variable: 'SCENARIO_LOCATION_ID', value: '<id>', description: "its location (default the demo account's first)" },
  { variable: 'LOG_LEVEL', value: '<level>', description: 'debug, info, warn, error or silent (default info)' },
];

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
