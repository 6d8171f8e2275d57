import { appendFile, writeFile } from 'node:fs/promises';

import type { z } from 'zod';

import { lookAtReadiness, settle, stoppedWaiting } from '../client/readiness-settle.js';
import { formatChecklist } from '../client/readiness-text.js';
import type * as readiness from '../readiness/operations.js';
import { resolveTarget, warnOfDemoKey } from './client.js';
import { clientFor, type CommonOptions } from './commands.js';
import { CliError, type CliContext } from './context.js';
import { exitCodeOf, githubAnnotations, junitXml, markdownReport, type Report } from './readiness-format.js';

type DrillOutcome = z.output<typeof readiness.DrillOutcome>;

/** Appends to a file the CI reads (a job summary), or writes a file (the JUnit report); a failure names the flag. */
async function writeOut(flag: string, file: string, text: string, append: boolean): Promise<void> {
  try {
    await (append ? appendFile(file, text) : writeFile(file, text));
  } catch (error) {
    throw new CliError(`cannot write ${flag} ${file}: ${(error as Error).message}`);
  }
}

export interface ReadinessOptions extends CommonOptions {
  junit?: string;
  markdown?: string;
  annotate?: string;
  wait?: string;
  pollMs?: string;
}

/**
 * `readiness`: prints the checklist; exits 1 while a required check is failed or pending, 0 when
 * ready. `--wait <seconds>` asks again while a required check is pending and something in flight
 * could still settle it (readiness-settle.ts), for at most that long: with nothing in flight at
 * two looks in a row, it stops waiting. `--junit <file>` also writes the report as JUnit XML,
 * `--markdown <file>` appends it as a Markdown table (a job summary), and `--annotate <level>`
 * prints a GitHub Actions annotation per required check failed or pending; all agree with the
 * exit code. Which account it grades goes to stderr, with a warning when that is the demo account
 * for want of a key.
 */
export async function readinessReport(
  options: ReadinessOptions,
  ctx: CliContext,
  sleep: (ms: number) => Promise<void>,
): Promise<number> {
  const waitMs = nonNegative('--wait', options.wait ?? '0') * 1000;
  const pollMs = Math.max(1, nonNegative('--poll-ms', options.pollMs ?? '2000'));
  if (options.annotate !== undefined && options.annotate !== 'error' && options.annotate !== 'warning') {
    throw new CliError(`--annotate must be error or warning; got ${JSON.stringify(options.annotate)}`, 2);
  }
  const { keyFrom } = resolveTarget(options, ctx.env);
  const client = clientFor(options, ctx);
  const first = await lookAtReadiness(client, 0);
  ctx.stderr(
    `water-sandbox readiness: grading account ${first.report.accountId} at ${client.baseUrl} (${keyFrom === 'demo' ? 'the demo key' : `the key of ${keyFrom}`})\n`,
  );
  warnOfDemoKey(
    keyFrom,
    ctx,
    'this grades the demo account',
    'set WATER_API_KEY to the key of the account your tests used',
  );
  const waited = await settle((waitedMs) => lookAtReadiness(client, waitedMs), { waitMs, pollMs, sleep }, first);
  const { report, inFlight } = waited.look;
  const stopped = stoppedWaiting(waited, waitMs);
  if (stopped !== null) ctx.stderr(`water-sandbox readiness: ${stopped}\n`);
  if (options.junit !== undefined) await writeOut('--junit', options.junit, junitXml(report, inFlight), false);
  if (options.markdown !== undefined)
    await writeOut('--markdown', options.markdown, markdownReport(report, inFlight), true);
  ctx.stdout(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatChecklist(report));
  if (options.annotate !== undefined) ctx.stdout(githubAnnotations(report, options.annotate, inFlight));
  return exitCodeOf(report);
}

function nonNegative(flag: string, text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < 0)
    throw new CliError(`${flag} must be a number of at least 0; got ${JSON.stringify(text)}`, 2);
  return value;
}

/** `readiness reset`: a new readiness window. */
export async function readinessReset(options: CommonOptions, ctx: CliContext): Promise<number> {
  const { body } = await clientFor(options, ctx).call<Report>('POST', '/sandbox/readiness/reset');
  ctx.stdout(
    options.json
      ? `${JSON.stringify(body, null, 2)}\n`
      : `readiness window of account ${body.accountId} opened at ${body.since}\n`,
  );
  return 0;
}

/** `readiness drill <name>`: provokes a rare case. */
export async function readinessDrill(name: string, options: CommonOptions, ctx: CliContext): Promise<number> {
  const { status, body } = await clientFor(options, ctx).call<DrillOutcome | { message: string }>(
    'POST',
    '/sandbox/readiness/drills',
    { drill: name },
    { accept: [400] },
  );
  // An unknown drill is a bad value of the command line; the sandbox's message lists the drills.
  if (status === 400 || !('drill' in body))
    throw new CliError(
      `${'message' in body ? body.message : 'the sandbox refused the drill'} (water-sandbox readiness drill <name>)`,
      2,
    );
  ctx.stdout(options.json ? `${JSON.stringify(body, null, 2)}\n` : `${body.drill}: ${body.effect}\n`);
  return 0;
}
