import { writeFile } from 'node:fs/promises';

import type { z } from 'zod';

import type * as readiness from '../readiness/operations.js';
import type { CommonOptions } from './commands.js';
import { clientFor } from './commands.js';
import { CliError, type CliContext } from './context.js';
import { formatChecklist, junitXml, type Report } from './readiness-format.js';

type DrillOutcome = z.output<typeof readiness.DrillOutcome>;

const unsettled = (report: Report): Report['checks'] => report.checks.filter((c) => c.required && c.status === 'pending');

/**
 * `readiness`: prints the checklist; exits 1 while a required check is failed or pending, 0 when
 * ready. `--wait <seconds>` asks again until no required check is pending (or the time is up);
 * `--junit <file>` also writes the report as JUnit XML.
 */
export async function readinessReport(
  options: CommonOptions & { junit?: string; wait?: string; pollMs?: string },
  ctx: CliContext,
  sleep: (ms: number) => Promise<void>,
): Promise<number> {
  const waitMs = nonNegative('--wait', options.wait ?? '0') * 1000;
  const pollMs = Math.max(1, nonNegative('--poll-ms', options.pollMs ?? '2000'));
  const client = clientFor(options, ctx);
  let report = (await client.call<Report>('GET', '/sandbox/readiness')).body;
  for (let waited = 0; unsettled(report).length > 0 && waited < waitMs; waited += pollMs) {
    await sleep(Math.min(pollMs, waitMs - waited));
    report = (await client.call<Report>('GET', '/sandbox/readiness')).body;
  }
  if (options.junit !== undefined) {
    try {
      await writeFile(options.junit, junitXml(report));
    } catch (error) {
      throw new CliError(`cannot write --junit ${options.junit}: ${(error as Error).message}`);
    }
  }
  ctx.stdout(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatChecklist(report));
  return report.ready ? 0 : 1;
}

function nonNegative(flag: string, text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < 0) throw new CliError(`${flag} must be a number of at least 0; got ${JSON.stringify(text)}`, 2);
  return value;
}

/** `readiness reset`: a new readiness window. */
export async function readinessReset(options: CommonOptions, ctx: CliContext): Promise<number> {
  const { body } = await clientFor(options, ctx).call<Report>('POST', '/sandbox/readiness/reset');
  ctx.stdout(options.json ? `${JSON.stringify(body, null, 2)}\n` : `readiness window of account ${body.accountId} opened at ${body.since}\n`);
  return 0;
}

/** `readiness drill <name>`: provokes a rare case. */
export async function readinessDrill(name: string, options: CommonOptions, ctx: CliContext): Promise<number> {
  const { status, body } = await clientFor(options, ctx).call<DrillOutcome | { message: string }>('POST', '/sandbox/readiness/drills', { drill: name }, { accept: [400] });
  // An unknown drill is a bad value of the command line; the sandbox's message lists the drills.
  if (status === 400 || !('drill' in body)) throw new CliError(`${'message' in body ? body.message : 'the sandbox refused the drill'} (water-sandbox readiness drill <name>)`, 2);
  ctx.stdout(options.json ? `${JSON.stringify(body, null, 2)}\n` : `${body.drill}: ${body.effect}\n`);
  return 0;
}
