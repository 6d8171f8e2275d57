import type { z } from 'zod';

import type * as readiness from '../readiness/operations.js';

/**
 * How `water-sandbox readiness` shows a report: the checklist of the terminal and the JUnit XML
 * of CI. Pure functions of the report, with no I/O, so any client of GET /sandbox/readiness (the
 * CLI, a test helper) prints a report the same way.
 */

// The answers, as the API's own schemas describe them (types only: the CLI loads no server code).
export type Report = z.output<typeof readiness.ReadinessReport>;
export type Check = Report['checks'][number];

const MARK: Record<Check['status'], string> = { passed: 'PASS', failed: 'FAIL', pending: 'WAIT', not_applicable: 'N/A ' };

/** The required checks that keep the integration from being ready: failed or pending. */
export const blocking = (report: Report): Check[] => report.checks.filter((c) => c.required && (c.status === 'failed' || c.status === 'pending'));

export function evidenceLine(evidence: Check['evidence'][number]): string {
  const what = 'request' in evidence ? `${evidence.request} -> ${evidence.status}` : 'deliveryId' in evidence ? `delivery ${evidence.deliveryId}` : `subscription ${evidence.subscriptionId}`;
  return `${evidence.time} ${what}: ${evidence.detail}`;
}

/** One check as the checklist shows it: its mark, id and title; under it one line of evidence and what to do. */
export function formatCheck(check: Check): string[] {
  const lines = [`${MARK[check.status]}  ${check.id}${check.required ? '' : ' (optional)'}: ${check.title}`];
  const first = check.evidence[0];
  if (first && check.status !== 'not_applicable') lines.push(`        ${evidenceLine(first)}${check.evidence.length > 1 ? ` (+${check.evidence.length - 1} more)` : ''}`);
  if (check.fix !== null && (check.status === 'failed' || check.required)) lines.push(`        ${check.status === 'failed' ? 'fix' : 'to show it'}: ${check.fix} (${check.docs})`);
  return lines;
}

/** The checklist: one line a check, and under it one line of evidence and what to do. */
export function formatChecklist(report: Report): string {
  const lines = [`Integration readiness of account ${report.accountId}, since ${report.since}`];
  for (const check of report.checks) lines.push(...formatCheck(check));
  const { passed, failed, pending, notApplicable } = report.summary;
  lines.push('', `${passed} passed, ${failed} failed, ${pending} pending, ${notApplicable} not applicable: ${report.ready ? 'ready for production' : `not ready (${blocking(report).length} required check${blocking(report).length === 1 ? '' : 's'} failed or pending)`}`);
  return `${lines.join('\n')}\n`;
}

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
