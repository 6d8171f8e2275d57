import { writeFile } from 'node:fs/promises';

import type { z } from 'zod';

import { evidenceLine, formatChecklist } from '../client/readiness-text.js';
import type * as readiness from '../readiness/operations.js';
import type { CommonOptions } from './commands.js';
import { clientFor } from './commands.js';
import { CliError, type CliContext } from './context.js';

// The answers, as the API's own schemas describe them (types only: the CLI loads no server code).
type Report = z.output<typeof readiness.ReadinessReport>;
type Check = Report['checks'][number];
type DrillOutcome = z.output<typeof readiness.DrillOutcome>;

const unsettled = (report: Report): Check[] => report.checks.filter((c) => c.required && c.status === 'pending');

/** Text for XML: markup escaped, and characters XML 1.0 cannot hold dropped. */
function xml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/**
 * The report as JUnit XML (the format every CI system shows): one testsuite, one testcase a
 * check; a failed check is a <failure> whose text is its evidence, a pending or not-applicable
 * one is <skipped>. A required check that is pending is skipped here, and the command's exit
 * code says the run is not ready.
 */
export function junitXml(report: Report): string {
  const cases = report.checks.map((check) => {
    const open = `    <testcase classname="readiness.${xml(check.id.split('.')[0]!)}" name="${xml(check.id)}${check.required ? '' : ' (optional)'}" time="0">`;
    if (check.status === 'passed') return `${open}\n      <system-out>${xml(check.evidence.map(evidenceLine).join('\n'))}</system-out>\n    </testcase>`;
    if (check.status === 'failed') {
      const body = [check.fix ?? '', `See ${check.docs}`, '', ...check.evidence.map(evidenceLine)].join('\n');
      return `${open}\n      <failure message="${xml(check.fix ?? check.title)}" type="${check.required ? 'required' : 'optional'}">${xml(body)}</failure>\n    </testcase>`;
    }
    const why = check.status === 'pending' ? `pending: ${check.fix ?? 'nothing has shown it yet'}` : 'not applicable: no OAuth traffic in the readiness window';
    return `${open}\n      <skipped message="${xml(why)}"/>\n    </testcase>`;
  });
  const { failed, pending, notApplicable } = report.summary;
  const suite = `name="water-sandbox readiness" tests="${report.checks.length}" failures="${failed}" errors="0" skipped="${pending + notApplicable}" time="0" timestamp="${xml(report.since)}"`;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites ${suite}>\n  <testsuite ${suite}>\n${cases.join('\n')}\n  </testsuite>\n</testsuites>\n`;
}

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
