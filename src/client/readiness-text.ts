import type { ReadinessCheck, ReadinessReport } from './types.js';

/**
 * The readiness report as text, one way for everyone who prints it: `water-sandbox readiness`
 * and the client's `readiness.assertReady()`.
 */

const MARK: Record<ReadinessCheck['status'], string> = {
  passed: 'PASS',
  failed: 'FAIL',
  pending: 'WAIT',
  not_applicable: 'N/A ',
};

/** The required checks that keep the report from being ready: failed or still pending. */
export const blockingChecks = (report: ReadinessReport): ReadinessCheck[] =>
  report.checks.filter((c) => c.required && (c.status === 'failed' || c.status === 'pending'));

/** One piece of evidence: when, what (a request, a delivery or a subscription), and what it showed. */
export function evidenceLine(evidence: ReadinessCheck['evidence'][number]): string {
  const what =
    'request' in evidence
      ? `${evidence.request} -> ${evidence.status}`
      : 'deliveryId' in evidence
        ? `delivery ${evidence.deliveryId}`
        : `subscription ${evidence.subscriptionId}`;
  return `${evidence.time} ${what}: ${evidence.detail}`;
}

/** A check's lines: its mark and title, then its first evidence and what to do, indented. */
export function checkLines(check: ReadinessCheck): string[] {
  const lines = [`${MARK[check.status]}  ${check.id}${check.required ? '' : ' (optional)'}: ${check.title}`];
  const first = check.evidence[0];
  if (first && check.status !== 'not_applicable')
    lines.push(
      `        ${evidenceLine(first)}${check.evidence.length > 1 ? ` (+${check.evidence.length - 1} more)` : ''}`,
    );
  if (check.fix !== null && (check.status === 'failed' || check.required))
    lines.push(`        ${check.status === 'failed' ? 'fix' : 'to show it'}: ${check.fix} (${check.docs})`);
  return lines;
}

/** The checklist: one line a check, and under it one line of evidence and what to do. */
export function formatChecklist(report: ReadinessReport): string {
  const lines = [`Integration readiness of account ${report.accountId}, since ${report.since}`];
  for (const check of report.checks) lines.push(...checkLines(check));
  const blocking = blockingChecks(report).length;
  const { passed, failed, pending, notApplicable } = report.summary;
  lines.push(
    '',
    `${passed} passed, ${failed} failed, ${pending} pending, ${notApplicable} not applicable: ${report.ready ? 'ready for production' : `not ready (${blocking} required check${blocking === 1 ? '' : 's'} failed or pending)`}`,
  );
  return `${lines.join('\n')}\n`;
}
