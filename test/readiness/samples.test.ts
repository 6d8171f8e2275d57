import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { parse, type TestSuites } from 'junit2json';

import { CliProcess, runCliProcess } from '../helpers/cli-process.js';
import { startTestSandbox, stopAllSandboxes } from '../helpers/start-sandbox.js';

/**
 * The two sample integrations of examples/readiness run as a partner runs them in CI: `node
 * <sample>` against a started sandbox (real clock, real loopback receiver) on a fresh account,
 * then `water-sandbox readiness --junit`. The report is asserted check by check, and the JUnit
 * file is read back by a JUnit parser.
 */

const run = promisify(execFile);
const sample = (name: string): string =>
  fileURLToPath(new URL(`../../examples/readiness/${name}.mjs`, import.meta.url));

afterAll(stopAllSandboxes);

interface Report {
  ready: boolean;
  checks: { id: string; status: string; evidence: { detail: string }[] }[];
}

async function runSample(name: string): Promise<{ url: string; apiKey: string; stdout: string }> {
  const sandbox = await startTestSandbox();
  const created = await fetch(`${sandbox.url}/sandbox/accounts`, { method: 'POST' });
  const account = (await created.json()) as { apiKey: string; user: { email: string; password: string } };
  const env = {
    PATH: process.env['PATH'] ?? '',
    SANDBOX_URL: sandbox.url,
    WATER_API_KEY: account.apiKey,
    WATER_USER_EMAIL: account.user.email,
    WATER_USER_PASSWORD: account.user.password,
  };
  const { stdout } = await run(process.execPath, [sample(name)], { env, timeout: 60_000 });
  return { url: sandbox.url, apiKey: account.apiKey, stdout };
}

/** `water-sandbox readiness --junit <file>` as a child process: its exit code, output, and the file parsed. */
async function readinessCli(
  url: string,
  apiKey: string,
): Promise<{ code: number | null; stdout: string; junit: TestSuites }> {
  const file = join(await mkdtemp(join(tmpdir(), 'readiness-')), 'readiness.xml');
  const { code, stdout } = await runCliProcess(['readiness', '--junit', file], {
    env: { SANDBOX_URL: url, WATER_API_KEY: apiKey },
  });
  const junit = await parse(await readFile(file, 'utf8'));
  if (!junit || !('testsuite' in junit)) throw new Error('the JUnit file has no <testsuites> root');
  return { code, stdout, junit };
}

/** The JUnit report's shape: one suite, a test case per check, counts that match its cases. */
function expectJunitShape(junit: TestSuites, expected: { failures: number; skipped: number }): void {
  expect(junit).toMatchObject({
    name: 'water-sandbox readiness',
    tests: 14,
    failures: expected.failures,
    errors: 0,
    skipped: expected.skipped,
  });
  expect(junit.testsuite).toHaveLength(1);
  const suite = junit.testsuite![0]!;
  expect(suite).toMatchObject({
    name: 'water-sandbox readiness',
    tests: 14,
    failures: expected.failures,
    skipped: expected.skipped,
  });
  expect(suite.testcase).toHaveLength(14);
  for (const testcase of suite.testcase!)
    expect(testcase.classname).toMatch(/^readiness\.(oauth|readings|polling|errors|subscriptions|webhooks)$/);
  expect(suite.testcase!.filter((c) => c.failure).length).toBe(expected.failures);
  expect(suite.testcase!.filter((c) => c.skipped).length).toBe(expected.skipped);
}

async function reportOf(url: string, apiKey: string): Promise<Report> {
  const res = await fetch(`${url}/sandbox/readiness`, { headers: { authorization: `Bearer ${apiKey}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as Report;
}

const statuses = (report: Report): Record<string, string> =>
  Object.fromEntries(report.checks.map((c) => [c.id, c.status]));

it('the careful integration ends with every required check passed: the report says ready', async () => {
  const { url, apiKey, stdout } = await runSample('careful');
  expect(stdout).toContain('done: run `water-sandbox readiness` for the report');
  const report = await reportOf(url, apiKey);
  expect(statuses(report)).toEqual({
    'oauth.token-exchange': 'passed',
    'oauth.refresh': 'passed',
    'readings.pagination': 'passed',
    'readings.grouping': 'passed',
    // Optional: showing it takes 10 minutes of polling.
    'polling.interval': 'pending',
    'errors.rate-limit': 'passed',
    'errors.server-errors': 'passed',
    'subscriptions.confirmed': 'passed',
    'webhooks.confirmation-answer': 'passed',
    'webhooks.check-answer': 'passed',
    'webhooks.alert-answer': 'passed',
    'webhooks.duplicate': 'passed',
    'webhooks.out-of-order': 'passed',
    // Optional: its subscription was deleted at the end; a loopback receiver is http anyway.
    'webhooks.https': 'pending',
  });
  expect(report.ready).toBe(true);

  const cli = await readinessCli(url, apiKey);
  expect(cli.code).toBe(0);
  expect(cli.stdout).toMatch(/^PASS  oauth\.refresh: /m);
  expect(cli.stdout).toContain('12 passed, 0 failed, 2 pending, 0 not applicable: ready for production');
  expectJunitShape(cli.junit, { failures: 0, skipped: 2 });
}, 90_000);

it('the naive integration fails exactly the checks it should, each naming its evidence', async () => {
  const { url, apiKey } = await runSample('naive');
  // Its first-page-only readings fail once their minute has passed. `readiness --wait` waits for
  // that; the minute is made to pass by moving the account clock, which counts as time passing.
  const file = join(await mkdtemp(join(tmpdir(), 'readiness-')), 'readiness.xml');
  const waiting = new CliProcess(['readiness', '--wait', '60', '--poll-ms', '100', '--junit', file], {
    env: { SANDBOX_URL: url, WATER_API_KEY: apiKey },
  });
  for (let asked = 0; asked === 0;) {
    const journal = await fetch(`${url}/sandbox/requests?path=/sandbox/readiness`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    asked = ((await journal.json()) as { requests: unknown[] }).requests.length;
    if (asked === 0) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const moved = await fetch(`${url}/sandbox/clock`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ advanceSeconds: 61 }),
  });
  expect(moved.status).toBe(200);
  const exit = await waiting.exited;
  expect(exit.code).toBe(1);
  expect(waiting.stdout).toMatch(
    /^FAIL  readings\.pagination: .*\n {8}\S+ GET \/v1\/locations\/\S+ -> 200: pageCount 4; pages 2, 3, 4 not requested within 60 s( \(\+1 more\))?\n {8}fix: When a readings answer has pageCount above 1/m,
  );
  expect(waiting.stdout).toContain(
    '4 passed, 10 failed, 0 pending, 0 not applicable: not ready (7 required checks failed or pending)',
  );
  const junit = await parse(await readFile(file, 'utf8'));
  if (!junit || !('testsuite' in junit)) throw new Error('the JUnit file has no <testsuites> root');
  // The 7 required checks that failed are failures, as the exit code says; the 3 optional ones that failed are skipped with their finding.
  expectJunitShape(junit, { failures: 7, skipped: 3 });
  const cases = junit.testsuite[0]!.testcase!;
  const failure = cases.find((c) => c.name === 'oauth.refresh')!.failure![0]!;
  expect(failure.message).toContain('grant_type=refresh_token');
  expect(failure.inner).toMatch(/GET \/v1\/locations -> 403: sent with the expired access token/);
  expect(cases.find((c) => c.name === 'readings.grouping (optional)')).toMatchObject({
    skipped: [
      {
        message: expect.stringMatching(
          /^optional, failed: hourly readings over \d+ days; fix: Ask for hourly readings over at most 31 days/,
        ),
      },
    ],
  });
  expect(cases.filter((c) => c.failure).map((c) => c.name)).toEqual([
    'oauth.refresh',
    'readings.pagination',
    'errors.rate-limit',
    'errors.server-errors',
    'webhooks.confirmation-answer',
    'webhooks.check-answer',
    'webhooks.alert-answer',
  ]);

  const report = await reportOf(url, apiKey);
  expect(statuses(report)).toEqual({
    'oauth.token-exchange': 'passed',
    'oauth.refresh': 'failed',
    'readings.pagination': 'failed',
    'readings.grouping': 'failed',
    'polling.interval': 'failed',
    'errors.rate-limit': 'failed',
    'errors.server-errors': 'failed',
    'subscriptions.confirmed': 'passed',
    'webhooks.confirmation-answer': 'failed',
    'webhooks.check-answer': 'failed',
    'webhooks.alert-answer': 'failed',
    // A 2xx is all these need, and an HTML page is a 2xx.
    'webhooks.duplicate': 'passed',
    'webhooks.out-of-order': 'passed',
    'webhooks.https': 'failed',
  });
  expect(report.ready).toBe(false);
  const detail = (id: string): string => report.checks.find((c) => c.id === id)!.evidence[0]!.detail;
  expect(detail('oauth.refresh')).toMatch(/^sent with the expired access token …\S+ \(request 1 with it\)$/);
  expect(detail('readings.pagination')).toMatch(/^pageCount 4; pages 2, 3, 4 not requested within 60 s$/);
  expect(detail('readings.grouping')).toMatch(/^hourly readings over 60 days$/);
  expect(detail('errors.rate-limit')).toMatch(
    /^sent 0(\.\d+)? s after the 429 of \S+, whose Retry-After asked for 2 s$/,
  );
  expect(detail('errors.server-errors')).toMatch(/^sent 0(\.\d+)? s \(under 1 s\) after the 503 answer of /);
  expect(detail('webhooks.confirmation-answer')).toMatch(
    /was answered 200 with a body that is not JSON at its first attempt$/,
  );
  expect(detail('webhooks.alert-answer')).toMatch(
    /^the lowLeak alert start to http:\/\/127\.0\.0\.1:\d+\/webhooks was answered 200 with a body that is not JSON/,
  );
}, 90_000);
