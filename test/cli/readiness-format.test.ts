import { parse, type TestCase, type TestSuites } from 'junit2json';

import {
  exitCodeOf,
  githubAnnotations,
  junitXml,
  markdownReport,
  type Check,
  type Report,
} from '../../src/cli/readiness-format.js';

/**
 * What CI is told of a report: the JUnit file, the Markdown summary and the annotations agree
 * with the exit code for every status of a required and an optional check.
 */

const EVIDENCE = {
  time: '2026-03-10T15:30:00.000Z',
  request: 'GET /v1/locations',
  status: 200,
  detail: 'what decided it',
};

function reportWith(status: Check['status'], required: boolean): Report {
  const check: Check = {
    id: required ? 'errors.rate-limit' : 'readings.grouping',
    title: 'A check',
    required,
    status,
    evidence: status === 'pending' || status === 'not_applicable' ? [] : [{ ...EVIDENCE }],
    fix: status === 'failed' ? 'Change this.' : status === 'pending' ? 'Do that to show it.' : null,
    docs: required ? 'docs/readiness.md#errorsrate-limit' : 'docs/readiness.md#readingsgrouping',
  };
  // A second check that passed: the suite is never just the case under test.
  const passed: Check = {
    id: 'webhooks.duplicate',
    title: 'Another',
    required: true,
    status: 'passed',
    evidence: [EVIDENCE],
    fix: null,
    docs: 'docs/readiness.md#webhooksduplicate',
  };
  const ready = !required || status === 'passed' || status === 'not_applicable';
  const count = (s: Check['status']): number => [check, passed].filter((c) => c.status === s).length;
  return {
    accountId: 'acc-1',
    since: '2026-03-10T15:00:00.000Z',
    ready,
    summary: {
      passed: count('passed'),
      failed: count('failed'),
      pending: count('pending'),
      notApplicable: count('not_applicable'),
    },
    checks: [check, passed],
  };
}

async function junitOf(
  report: Report,
  inFlight?: ReadonlyMap<string, string>,
): Promise<TestSuites & { cases: TestCase[] }> {
  const parsed = await parse(junitXml(report, inFlight));
  if (!parsed || !('testsuite' in parsed)) throw new Error('no <testsuites> root');
  // junit2json leaves out an element the XML lacks, whatever its types say.
  return { ...parsed, cases: (parsed.testsuite as TestSuites['testsuite'] | undefined)?.[0]?.testcase ?? [] };
}

describe.each([
  // status, required, exit code, how the check's test case shows
  ['passed', true, 0, 'pass'],
  ['failed', true, 1, 'failure'],
  ['pending', true, 1, 'failure'],
  ['not_applicable', true, 0, 'skipped'],
  ['passed', false, 0, 'pass'],
  ['failed', false, 0, 'skipped'],
  ['pending', false, 0, 'skipped'],
  ['not_applicable', false, 0, 'skipped'],
] as const)('a %s check, required %s', (status, required, exitCode, shown) => {
  const report = reportWith(status, required);

  it(`exits ${exitCode}, as the report's ready says, and the JUnit file has ${exitCode} failure(s): the check is a ${shown}`, async () => {
    expect(exitCodeOf(report)).toBe(report.ready ? 0 : 1);
    expect(exitCodeOf(report)).toBe(exitCode);
    const junit = await junitOf(report);
    expect(junit).toMatchObject({ tests: 2, failures: exitCode, errors: 0, skipped: shown === 'skipped' ? 1 : 0 });
    const [testcase, other] = junit.cases;
    expect(other).toEqual(expect.not.objectContaining({ failure: expect.anything() }));
    expect(Boolean(testcase!.failure)).toBe(shown === 'failure');
    expect(Boolean(testcase!.skipped)).toBe(shown === 'skipped');
  });

  it(`the Markdown summary's verdict and the annotations say the same (${exitCode === 1 ? 'one error' : 'no error'})`, () => {
    expect(markdownReport(report)).toMatch(
      exitCode === 1
        ? /^### Integration readiness: not ready \(1 required check failed or pending\)$/m
        : /^### Integration readiness: ready for production$/m,
    );
    const annotations = githubAnnotations(report, 'error');
    expect(annotations.match(/^::error /gm)?.length ?? 0).toBe(exitCode);
    expect(githubAnnotations(report, 'warning').match(/^::warning /gm)?.length ?? 0).toBe(exitCode);
  });
});

it('a required pending check fails with what would settle it: what is in flight, or that nothing is', async () => {
  const report = reportWith('pending', true);
  const idle = (await junitOf(report)).cases[0]!;
  expect(idle.failure![0]!.message).toBe(
    'pending: nothing in flight could settle it; to settle it: Do that to show it.',
  );
  const inFlight = new Map([['errors.rate-limit', "the client's next request after … is due"]]);
  expect((await junitOf(report, inFlight)).cases[0]!.failure![0]!.message).toBe(
    "pending: still in flight: the client's next request after … is due; to settle it: Do that to show it.",
  );
});

it('an optional check that failed is skipped with its finding and fix, and gets a notice, not an error', async () => {
  const report = reportWith('failed', false);
  const testcase = (await junitOf(report)).cases[0]!;
  expect(testcase).toMatchObject({
    name: 'readings.grouping (optional)',
    skipped: [{ message: 'optional, failed: what decided it; fix: Change this.' }],
  });
  expect(githubAnnotations(report, 'error')).toBe(
    '::notice title=readiness%3A readings.grouping failed (optional)::A check. fix: Change this. (docs/readiness.md#readingsgrouping)%0Aevidence: 2026-03-10T15:30:00.000Z GET /v1/locations -> 200: what decided it\n',
  );
});

it('escapes what a workflow command and a Markdown table cannot hold', () => {
  const report = reportWith('failed', true);
  report.checks[0]!.evidence[0]!.detail = '100% | <b>\nnext line';
  const annotation = githubAnnotations(report, 'error');
  expect(annotation).toContain('200: 100%25 | <b>%0Anext line');
  expect(annotation.split('\n').filter((l) => l !== '')).toHaveLength(1);
  const row = markdownReport(report)
    .split('\n')
    .find((l) => l.includes('errors.rate-limit'))!;
  expect(row).toBe(
    '| ❌ failed | `errors.rate-limit`: A check | 2026-03-10T15:30:00.000Z GET /v1/locations -&gt; 200: 100% \\| &lt;b&gt; next line | fix: Change this. (docs/readiness.md#errorsrate-limit) |',
  );
});

it("the Markdown summary shows what decided a passed check (its last evidence, with pagination's advice), and a failed one's first", () => {
  const report = reportWith('passed', true);
  report.checks[0]!.evidence.push({ ...EVIDENCE, detail: 'the last of 8 pages; pin endTime' });
  const rows = markdownReport(report).split('\n');
  expect(rows.find((l) => l.includes('errors.rate-limit'))).toContain(
    '200: the last of 8 pages; pin endTime (+1 more) |',
  );
  const failed = reportWith('failed', true);
  failed.checks[0]!.evidence.push({ ...EVIDENCE, detail: 'a second failure' });
  expect(
    markdownReport(failed)
      .split('\n')
      .find((l) => l.includes('errors.rate-limit')),
  ).toContain('200: what decided it (+1 more) |');
});
