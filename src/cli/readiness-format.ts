import { blockingChecks, evidenceLine } from '../client/readiness-text.js';
import type { ReadinessCheck, ReadinessReport } from '../client/types.js';

/**
 * How `water-sandbox readiness` reports to CI: the JUnit XML, a Markdown summary and GitHub
 * annotations, which agree with the exit code. The checklist of the terminal is
 * src/client/readiness-text.ts, shared with the client's readiness.assertReady(). Pure functions
 * of the report, with no I/O.
 */

export type Report = ReadinessReport;
export type Check = ReadinessCheck;

/** Text for XML: markup escaped, and characters XML 1.0 cannot hold dropped. */
function xml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/** What the integration still lacks for a required check that is pending: what is in flight for it, else that nothing is. */
export function pendingNote(check: Check, inFlight: ReadonlyMap<string, string>): string {
  const flying = inFlight.get(check.id);
  const now = flying === undefined ? 'nothing in flight could settle it' : `still in flight: ${flying}`;
  return `pending: ${now}; to settle it: ${check.fix ?? 'nothing has shown it yet'}`;
}

/**
 * How a check counts in CI, so that a report's JUnit file, its annotations and the command's exit
 * code always agree: a required check that is failed or pending fails (pending is a failure
 * that says what would settle it); an optional check never fails (failed or pending, it is
 * skipped with its finding); a passed check passes; a not-applicable one is skipped.
 */
export type CiOutcome =
  { kind: 'passed' } | { kind: 'failure'; message: string } | { kind: 'skipped'; message: string };

export function ciOutcome(check: Check, inFlight: ReadonlyMap<string, string> = new Map()): CiOutcome {
  const finding = check.evidence[0]?.detail;
  switch (check.status) {
    case 'passed':
      return { kind: 'passed' };
    case 'not_applicable':
      return { kind: 'skipped', message: 'not applicable: no OAuth traffic in the readiness window' };
    case 'failed':
      if (check.required) return { kind: 'failure', message: `failed: ${check.fix ?? check.title}` };
      return {
        kind: 'skipped',
        message: `optional, failed${finding === undefined ? '' : `: ${finding}`}; fix: ${check.fix ?? check.title}`,
      };
    case 'pending':
      if (check.required) return { kind: 'failure', message: pendingNote(check, inFlight) };
      return { kind: 'skipped', message: `optional, pending: ${check.fix ?? 'nothing has shown it yet'}` };
  }
}

/** The exit code of `water-sandbox readiness` for a report: 1 while a required check is failed or pending, as its JUnit file has failures. */
export const exitCodeOf = (report: Report): 0 | 1 =>
  report.checks.some((c) => ciOutcome(c).kind === 'failure') ? 1 : 0;

/**
 * The report as JUnit XML (the format every CI system shows): one testsuite, one testcase a
 * check, as ciOutcome counts it. A <failure>'s text is what to do and the evidence; every
 * testcase's evidence is in its <system-out>. `inFlight` says, for pending checks, what could
 * still settle them.
 */
export function junitXml(report: Report, inFlight: ReadonlyMap<string, string> = new Map()): string {
  let failures = 0;
  let skipped = 0;
  const cases = report.checks.map((check) => {
    const outcome = ciOutcome(check, inFlight);
    const lines = [
      `    <testcase classname="readiness.${xml(check.id.replace(/\..*$/s, ''))}" name="${xml(check.id)}${check.required ? '' : ' (optional)'}" time="0">`,
    ];
    if (outcome.kind === 'failure') {
      failures++;
      const body = [check.fix ?? '', `See ${check.docs}`, '', ...check.evidence.map(evidenceLine)].join('\n');
      lines.push(`      <failure message="${xml(outcome.message)}" type="${check.status}">${xml(body)}</failure>`);
    } else if (outcome.kind === 'skipped') {
      skipped++;
      lines.push(`      <skipped message="${xml(outcome.message)}"/>`);
    }
    if (check.evidence.length > 0)
      lines.push(`      <system-out>${xml(check.evidence.map(evidenceLine).join('\n'))}</system-out>`);
    lines.push('    </testcase>');
    return lines.join('\n');
  });
  const suite = `name="water-sandbox readiness" tests="${report.checks.length}" failures="${failures}" errors="0" skipped="${skipped}" time="0" timestamp="${xml(report.since)}"`;
  const fields: [string, string][] = [
    ['accountId', report.accountId],
    ['since', report.since],
    ['ready', String(report.ready)],
  ];
  const properties = fields.map(([name, value]) => `      <property name="${name}" value="${xml(value)}"/>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites ${suite}>\n  <testsuite ${suite}>\n    <properties>\n${properties.join('\n')}\n    </properties>\n${cases.join('\n')}\n  </testsuite>\n</testsuites>\n`;
}

const ICON: Record<Check['status'], string> = {
  passed: '✅ passed',
  failed: '❌ failed',
  pending: '⏳ pending',
  not_applicable: '➖ not applicable',
};

/** Text for a cell of a Markdown table: one line, no column breaks, no HTML. */
function cell(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\|/g, '\\|')
    .trim();
}

/** What to do about a check, for a person reading CI: its fix when it failed, what would settle a required one pending, else nothing. */
const whatToDo = (check: Check, outcome: CiOutcome): string =>
  check.status === 'failed' ? `fix: ${check.fix ?? check.title}` : outcome.kind === 'failure' ? outcome.message : '';

/** One piece of a check's evidence, saying how many more there are. */
const evidenceOf = (check: Check, shown: Check['evidence'][number]): string =>
  `${evidenceLine(shown)}${check.evidence.length > 1 ? ` (+${check.evidence.length - 1} more)` : ''}`;

/** The verdict in one line: ready, or how many required checks keep it from being ready. */
export function verdictLine(report: Report): string {
  const count = blockingChecks(report).length;
  return count === 0
    ? 'ready for production'
    : `not ready (${count} required check${count === 1 ? '' : 's'} failed or pending)`;
}

/**
 * The report as Markdown (a job summary of GitHub Actions, a merge-request comment): a heading
 * with the verdict, and a table of the checks with the evidence that decided each and what to do.
 */
export function markdownReport(report: Report, inFlight: ReadonlyMap<string, string> = new Map()): string {
  const { passed, failed, pending, notApplicable } = report.summary;
  const rows = report.checks.map((check) => {
    const outcome = ciOutcome(check, inFlight);
    // What decided it: for a passed check the last piece (the page that completed a walk, the retry that waited), else the first.
    const shown = check.status === 'passed' ? check.evidence.at(-1) : check.evidence[0];
    const evidence = shown === undefined ? '' : evidenceOf(check, shown);
    const todo = whatToDo(check, outcome);
    return `| ${ICON[check.status]} | \`${check.id}\`${check.required ? '' : ' (optional)'}: ${cell(check.title)} | ${cell(evidence)} | ${cell(todo)}${todo === '' ? '' : ` (${cell(check.docs)})`} |`;
  });
  return [
    `### Integration readiness: ${verdictLine(report)}`,
    '',
    `Account \`${report.accountId}\`, since ${report.since}: ${passed} passed, ${failed} failed, ${pending} pending, ${notApplicable} not applicable.`,
    '',
    '| Status | Check | Evidence | What to do |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

/** A value of a GitHub Actions workflow command (https://docs.github.com/actions/reference/workflow-commands-for-github-actions). */
const commandData = (text: string): string => text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const commandProperty = (text: string): string => commandData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');

/**
 * GitHub Actions annotations: one at `level` per required check that is failed or pending (its
 * fix, or what would settle it, and its first evidence), and a notice per optional check that failed.
 */
export function githubAnnotations(
  report: Report,
  level: 'error' | 'warning',
  inFlight: ReadonlyMap<string, string> = new Map(),
): string {
  const lines: string[] = [];
  for (const check of report.checks) {
    const outcome = ciOutcome(check, inFlight);
    const optionalFailure = !check.required && check.status === 'failed';
    if (outcome.kind !== 'failure' && !optionalFailure) continue;
    const first = check.evidence[0];
    const message = `${check.title}. ${whatToDo(check, outcome)} (${check.docs})${first === undefined ? '' : `\nevidence: ${evidenceOf(check, first)}`}`;
    const title = `readiness: ${check.id} ${check.status}${check.required ? '' : ' (optional)'}`;
    lines.push(`::${optionalFailure ? 'notice' : level} title=${commandProperty(title)}::${commandData(message)}`);
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}
