import type { z } from 'zod';

import type * as accounts from '../accounts/operations.js';
import type * as alerts from '../alerts/schemas.js';
import { accountEnvironment } from '../client/account.js';
import type * as scenarios from '../scenarios/operations.js';
import { isSharedKey, resolveTarget, SandboxClient, sharedAccountWarning, type ClientOptions } from './client.js';
import { CliError, type CliContext } from './context.js';
import { formatDuration, parseDuration } from './duration.js';

// The answers the commands read, as the API's own schemas describe them (types only: the CLI loads no server code).
type CreatedAccount = z.output<typeof accounts.CreatedAccount>;
type AlertStarted = z.output<typeof alerts.AlertStarted>;
type AlertEnded = z.output<typeof alerts.AlertEnded>;
type ClockState = z.output<typeof scenarios.ClockStateBody>;
type ScenarioSummary = z.output<typeof scenarios.ScenarioSummary>;
type Run = z.output<typeof scenarios.Run>;

export interface CommonOptions extends ClientOptions {
  json?: boolean;
}

/**
 * The client of a command. One that acts on the account of its key (`acts`: what it does with
 * it, for the warning) says on stderr when that is the shared demo account.
 */
export function clientFor(options: ClientOptions, ctx: CliContext, acts: string | null = 'acts on'): SandboxClient {
  const { baseUrl, apiKey, keyFrom } = resolveTarget(options, ctx.env);
  if (acts !== null && isSharedKey(apiKey)) ctx.stderr(sharedAccountWarning(keyFrom, acts));
  return new SandboxClient(baseUrl, apiKey);
}

const seg = encodeURIComponent;

/** A value as a POSIX shell word: bare when it is safe, else in single quotes. */
export function shellWord(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * `accounts create`: a fresh account, as shell lines. `shell` (the default) ends with an
 * `export` line, for `eval "$(water-sandbox accounts create)"`; `env` is plain NAME=value
 * lines (for `>> "$GITHUB_ENV"` or an env file); `json` is the sandbox's answer.
 */
export async function accountsCreate(
  options: CommonOptions & { seed?: string; locations?: string; name?: string; adminToken?: string; format?: string },
  ctx: CliContext,
): Promise<number> {
  const format = options.json ? 'json' : (options.format ?? 'shell');
  if (!['shell', 'env', 'json'].includes(format))
    throw new CliError(`--format must be shell, env or json; got ${JSON.stringify(format)}`, 2);
  // Account creation uses no account's key.
  const client = clientFor(options, ctx, null);
  const body: Record<string, unknown> = {};
  if (options.seed !== undefined) body['seed'] = wholeNumber('--seed', options.seed);
  if (options.locations !== undefined) body['locations'] = wholeNumber('--locations', options.locations);
  if (options.name !== undefined) body['name'] = options.name;
  // Account creation needs no account key; with ADMIN_TOKEN set on the sandbox it needs that token.
  const adminToken = options.adminToken ?? (ctx.env['ADMIN_TOKEN'] || null);
  const { body: account } = await client.call<CreatedAccount>('POST', '/sandbox/accounts', body, {
    credential: adminToken,
  });
  if (format === 'json') {
    ctx.stdout(`${JSON.stringify(account, null, 2)}\n`);
    return 0;
  }
  const variables = Object.entries(accountEnvironment(client.baseUrl, account));
  const lines = variables.map(([name, value]) => `${name}=${format === 'env' ? value : shellWord(value)}`);
  if (format === 'shell') lines.push(`export ${variables.map(([name]) => name).join(' ')}`);
  ctx.stdout(`${lines.join('\n')}\n`);
  return 0;
}

function wholeNumber(flag: string, text: string): number {
  if (!/^\d+$/.test(text)) throw new CliError(`${flag} must be a whole number; got ${JSON.stringify(text)}`, 2);
  return Number(text);
}

function number(flag: string, text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value))
    throw new CliError(`${flag} must be a number; got ${JSON.stringify(text)}`, 2);
  return value;
}

const notificationCount = (value: unknown): string =>
  typeof value === 'number' ? `, ${value} notification${value === 1 ? '' : 's'}` : '';

/** `trigger <alertType> --location <id>`: prints the alert id (stdout) and what happened (stderr). */
export async function trigger(
  alertType: string,
  options: CommonOptions & { location: string; device?: string; peakValue?: string; peakStatus?: string },
  ctx: CliContext,
): Promise<number> {
  const client = clientFor(options, ctx);
  const body: Record<string, unknown> = { type: alertType };
  if (options.device !== undefined) body['deviceId'] = options.device;
  if (options.peakValue !== undefined) body['peakValue'] = number('--peak-value', options.peakValue);
  if (options.peakStatus !== undefined) body['peakStatus'] = options.peakStatus === 'null' ? null : options.peakStatus;
  const { body: alert } = await client.call<AlertStarted>(
    'POST',
    `/sandbox/locations/${seg(options.location)}/alerts`,
    body,
  );
  if (options.json) ctx.stdout(`${JSON.stringify(alert, null, 2)}\n`);
  else {
    ctx.stdout(`${alert.alertId}\n`);
    ctx.stderr(
      `started ${alert.type} alert ${alert.alertId} at location ${options.location}${notificationCount(alert.notifications)}${alert.note ? ` (${alert.note})` : ''}\n`,
    );
  }
  return 0;
}

/** `end <alertId> --location <id>`. */
export async function end(
  alertId: string,
  options: CommonOptions & { location: string },
  ctx: CliContext,
): Promise<number> {
  const client = clientFor(options, ctx);
  const { body: alert } = await client.call<AlertEnded>(
    'POST',
    `/sandbox/locations/${seg(options.location)}/alerts/${seg(alertId)}/end`,
  );
  if (options.json) ctx.stdout(`${JSON.stringify(alert, null, 2)}\n`);
  else {
    ctx.stdout(`${alert.alertId}\n`);
    const resumed = alert.resumed ? `; ${alert.resumed.type} alert ${alert.resumed.alertId} is in force again` : '';
    ctx.stderr(`ended ${alert.type} alert ${alert.alertId}${notificationCount(alert.notifications)}${resumed}\n`);
  }
  return 0;
}

function printClock(clock: ClockState, options: CommonOptions, ctx: CliContext): number {
  if (options.json) ctx.stdout(`${JSON.stringify(clock, null, 2)}\n`);
  else {
    ctx.stdout(`${clock.now}\n`);
    const offset =
      clock.offsetSeconds === 0 ? 'no offset' : `offset ${clock.offsetSeconds > 0 ? '+' : ''}${clock.offsetSeconds} s`;
    ctx.stderr(`account clock: ${clock.now} (${offset}, ${clock.frozen ? 'frozen' : 'running'})\n`);
  }
  return 0;
}

/** `clock show|advance|set|real`: GET or POST /sandbox/clock; prints the clock's now (stdout) and its state (stderr). */
export async function clock(
  action: 'show' | 'advance' | 'set' | 'real',
  value: string | undefined,
  options: CommonOptions & { freeze?: boolean },
  ctx: CliContext,
): Promise<number> {
  const client = clientFor(options, ctx);
  if (action === 'show') return printClock((await client.call<ClockState>('GET', '/sandbox/clock')).body, options, ctx);
  let body: Record<string, unknown>;
  if (action === 'real') body = { realTime: true };
  else if (action === 'advance') body = { advanceSeconds: parseDuration(value ?? '') };
  // Epoch seconds as a number; anything else as the sandbox reads it (ISO 8601 with a zone).
  else body = { now: /^\d+$/.test(value ?? '') ? Number(value) : value };
  if (options.freeze && action !== 'real') body['frozen'] = true;
  return printClock((await client.call<ClockState>('POST', '/sandbox/clock', body)).body, options, ctx);
}

/** `scenario list`. */
export async function scenarioList(options: CommonOptions, ctx: CliContext): Promise<number> {
  const { body } = await clientFor(options, ctx).call<{ scenarios: ScenarioSummary[] }>('GET', '/sandbox/scenarios');
  if (options.json) ctx.stdout(`${JSON.stringify(body, null, 2)}\n`);
  else
    for (const s of body.scenarios)
      ctx.stdout(
        `${s.name.padEnd(22)} ${formatDuration(s.durationSeconds).padEnd(8)} ${s.steps} steps  ${s.description}\n`,
      );
  return 0;
}

/**
 * `scenario run <name> --location <id>`: starts the run and prints each step as it is applied,
 * until the run completes (exit 0) or fails (exit 1). Runs play on the account clock: in real
 * time, or with --fast by moving that clock to each next step (the clock stays moved). Ctrl-C
 * (SIGINT) or SIGTERM cancels the run it started and says so (exit 130 or 143); with --detach it
 * prints the run id and leaves the run playing.
 */
export async function scenarioRun(
  name: string,
  options: CommonOptions & { location: string; fast?: boolean; pollMs?: string; detach?: boolean },
  ctx: CliContext,
  sleep: (ms: number) => Promise<void>,
): Promise<number> {
  if (options.detach && options.fast) {
    throw new CliError(
      '--detach and --fast do not go together: --fast plays the run from this command; after --detach, move the clock with water-sandbox clock advance',
      2,
    );
  }
  const client = clientFor(options, ctx);
  const pollMs = options.pollMs === undefined ? 1000 : wholeNumber('--poll-ms', options.pollMs);
  // With --json, only the finished run is printed.
  const say = options.json ? (): void => undefined : (text: string): void => ctx.stdout(text);
  // An unknown name points to the command that lists the names, not to an HTTP route.
  const known = await client.call('GET', `/sandbox/scenarios/${seg(name)}`, undefined, { accept: [404] });
  if (known.status === 404)
    throw new CliError(
      `no scenario ${JSON.stringify(name)} on this sandbox; water-sandbox scenario list shows the ones it has`,
    );

  // From here on a stop signal cancels the run (once it has started), instead of leaving it to fire later.
  // An object, not a variable: the type checker does not see the callback set it while the loop awaits.
  const stop: { signal: string | null } = { signal: null };
  const stopped = options.detach ? null : ctx.untilStopSignal().then((s) => (stop.signal = s));
  const orStop = <T>(work: Promise<T>): Promise<T | null> =>
    stopped ? Promise.race([work, stopped.then(() => null)]) : work;

  let { body: run } = await client.call<Run>('POST', `/sandbox/scenarios/${seg(name)}/runs`, {
    locationId: options.location,
  });
  if (options.detach) {
    if (options.json) ctx.stdout(`${JSON.stringify(run, null, 2)}\n`);
    else ctx.stdout(`${run.runId}\n`);
    ctx.stderr(
      `run ${run.runId}: ${run.scenario} at location ${run.locationId}, ${run.steps} steps, left playing on the account clock (water-sandbox scenario cancel ${run.runId} stops it)\n`,
    );
    return 0;
  }
  say(
    `run ${run.runId}: ${run.scenario} at location ${run.locationId}, ${run.steps} steps${options.fast ? ', played fast on the account clock' : ''}\n`,
  );
  const started = Date.parse(run.startedAt);
  let printed = 0;
  let announced: string | null = null;
  for (;;) {
    for (const entry of run.log.slice(printed)) {
      const offset = formatDuration((Date.parse(entry.at) - started) / 1000);
      say(
        `step ${entry.step + 1}/${run.steps} ${offset.padEnd(7)} ${entry.do}: ${entry.ok ? entry.result : `FAILED: ${entry.result}`}\n`,
      );
    }
    printed = run.log.length;
    if (run.state !== 'running' || stop.signal !== null) break;
    if (options.fast && run.nextStepAt !== null) {
      const now = await orStop(client.call<ClockState>('GET', '/sandbox/clock'));
      if (now === null) break;
      // At least a millisecond: an advance runs what is due, even a step the server's interval has not reached yet.
      const advanceSeconds = Math.max(Date.parse(run.nextStepAt) - Date.parse(now.body.now), 1) / 1000;
      if ((await orStop(client.call('POST', '/sandbox/clock', { advanceSeconds }))) === null) break;
    } else {
      if (run.nextStepAt !== null && run.nextStepAt !== announced) {
        announced = run.nextStepAt;
        say(
          `next step at ${run.nextStepAt} on the account clock (use --fast, or water-sandbox clock advance, to get there now; Ctrl-C cancels the run)\n`,
        );
      }
      if ((await orStop(sleep(pollMs))) === null) break;
    }
    run = (await client.call<Run>('GET', `/sandbox/runs/${seg(run.runId)}`)).body;
  }
  if (stop.signal !== null && run.state === 'running')
    return cancelOnSignal(client, run, stop.signal, say, options, ctx);
  say(`run ${run.runId} ${run.state}\n`);
  if (options.json) ctx.stdout(`${JSON.stringify(run, null, 2)}\n`);
  return run.state === 'completed' ? 0 : 1;
}

/** Cancels the run a stopped `scenario run` started, and says what that leaves: exit 130 for SIGINT, 143 for SIGTERM. */
async function cancelOnSignal(
  client: SandboxClient,
  run: Run,
  signal: string,
  say: (text: string) => void,
  options: CommonOptions,
  ctx: CliContext,
): Promise<number> {
  const exitCode = signal === 'SIGTERM' ? 143 : 130;
  const { status, body } = await client.call<Run>('POST', `/sandbox/runs/${seg(run.runId)}/cancel`, undefined, {
    accept: [409],
  });
  if (status === 409) {
    ctx.stderr(`${signal}: run ${run.runId} ended before it could be cancelled\n`);
    return exitCode;
  }
  say(`run ${body.runId} cancelled\n`);
  if (options.json) ctx.stdout(`${JSON.stringify(body, null, 2)}\n`);
  ctx.stderr(
    `${signal}: cancelled run ${body.runId} after step ${body.nextStep} of ${body.steps}: no later step fires; alerts it started stay as they are (water-sandbox end <alertId> --location <id> ends one)\n`,
  );
  return exitCode;
}

/** `scenario cancel <runId>`: no later step of the run fires. */
export async function scenarioCancel(runId: string, options: CommonOptions, ctx: CliContext): Promise<number> {
  const { body: run } = await clientFor(options, ctx).call<Run>('POST', `/sandbox/runs/${seg(runId)}/cancel`);
  if (options.json) ctx.stdout(`${JSON.stringify(run, null, 2)}\n`);
  else {
    ctx.stdout(`${run.runId}\n`);
    ctx.stderr(
      `cancelled run ${run.runId} (${run.scenario}) after step ${run.nextStep} of ${run.steps}; alerts it started stay as they are\n`,
    );
  }
  return 0;
}
