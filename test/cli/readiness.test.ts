import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { parse } from 'junit2json';

import { CliProcess, runCliProcess } from '../helpers/cli-process.js';
import { startTestSandbox, stopAllSandboxes } from '../helpers/start-sandbox.js';
import { eventually } from '../helpers/waiting.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/** `water-sandbox readiness`, `readiness reset` and `readiness drill` as child processes against a started sandbox. */

afterAll(stopAllSandboxes);

async function freshAccount(): Promise<{
  env: Record<string, string>;
  url: string;
  apiKey: string;
  locationId: string;
}> {
  const sandbox = await startTestSandbox();
  const res = await fetch(`${sandbox.url}/sandbox/accounts`, { method: 'POST' });
  const account = (await res.json()) as { apiKey: string; locations: { locationId: string }[] };
  return {
    env: { SANDBOX_URL: sandbox.url, WATER_API_KEY: account.apiKey },
    url: sandbox.url,
    apiKey: account.apiKey,
    locationId: account.locations[0]!.locationId,
  };
}

const call = (url: string, apiKey: string, method: string, path: string, body?: unknown): Promise<Response> =>
  fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

it('prints the checklist of a fresh account and exits 1: required checks are pending', async () => {
  const { env } = await freshAccount();
  const { code, stdout } = await runCliProcess(['readiness'], { env });
  expect(code).toBe(1);
  expect(stdout).toMatch(/^Integration readiness of account \S+, since \S+$/m);
  expect(stdout).toMatch(
    /^N\/A   oauth\.token-exchange: OAuth: the authorization code is exchanged and the access token used$/m,
  );
  expect(stdout).toMatch(
    /^WAIT  errors\.rate-limit: .*\n {8}to show it: Run the rate-limit drill and let your client make its next \/v1 calls\. \(docs\/readiness\.md#errorsrate-limit\)$/m,
  );
  expect(stdout).toMatch(/^WAIT  polling\.interval \(optional\): /m);
  expect(stdout).toContain(
    '0 passed, 0 failed, 12 pending, 2 not applicable: not ready (9 required checks failed or pending)',
  );
});

it('readiness drill runs a drill and says what it set up; an unknown drill exits 2 naming the drills', async () => {
  const { env, url, apiKey } = await freshAccount();
  const ran = await runCliProcess(['readiness', 'drill', 'rate-limit'], { env });
  expect(ran).toMatchObject({
    code: 0,
    stdout: 'rate-limit: the next 3 /v1 requests answer 429 with Retry-After: 2\n',
  });
  expect((await call(url, apiKey, 'GET', '/v1/locations')).status).toBe(429);
  const unknown = await runCliProcess(['readiness', 'drill', 'flood'], { env });
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain(
    'drill must be one of expire-tokens, rate-limit, server-errors, duplicate-delivery, out-of-order; got "flood"',
  );
  const refused = await runCliProcess(['readiness', 'drill', 'duplicate-delivery'], { env });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('No alert notification has been delivered');
});

it('readiness reset opens a new window: the failure before it no longer counts', async () => {
  const { env, url, apiKey } = await freshAccount();
  await call(url, apiKey, 'POST', '/sandbox/readiness/drills', { drill: 'rate-limit' });
  await call(url, apiKey, 'GET', '/v1/locations');
  await call(url, apiKey, 'GET', '/v1/locations');
  expect((await runCliProcess(['readiness'], { env })).stdout).toMatch(/^FAIL  errors\.rate-limit: /m);
  const reset = await runCliProcess(['readiness', 'reset'], { env });
  expect(reset.code).toBe(0);
  expect(reset.stdout).toMatch(/^readiness window of account \S+ opened at \S+Z$/m);
  expect((await runCliProcess(['readiness'], { env })).stdout).toMatch(/^WAIT  errors\.rate-limit: /m);
});

/** How many times the account's report was asked for (the journal keeps the sandbox's own calls too). */
async function reportsAsked(url: string, apiKey: string): Promise<number> {
  const res = await call(url, apiKey, 'GET', '/sandbox/requests?path=/sandbox/readiness');
  return ((await res.json()) as { requests: unknown[] }).requests.length;
}

it('says on stderr which account it grades, with which key; without a key it warns that it grades the demo account', async () => {
  const { env, url } = await freshAccount();
  const own = await runCliProcess(['readiness'], { env });
  const accountId = /^Integration readiness of account (\S+),/m.exec(own.stdout)![1]!;
  expect(own.stderr).toBe(
    `water-sandbox readiness: grading account ${accountId} at ${url} (the key of WATER_API_KEY)\n`,
  );
  const demo = await runCliProcess(['readiness'], { env: { SANDBOX_URL: url } });
  expect(demo.stderr).toMatch(
    /^water-sandbox readiness: grading account \S+ at \S+ \(the demo key\)\nwarning: neither --api-key nor WATER_API_KEY is set, so this grades the demo account, which every user of this sandbox shares; /,
  );
});

it('--wait returns at once when nothing in flight can settle the pending checks: two looks, not the whole wait', async () => {
  const { env, url, apiKey } = await freshAccount();
  const { code, stdout, stderr } = await runCliProcess(['readiness', '--wait', '600', '--poll-ms', '200'], { env });
  expect(code).toBe(1);
  expect(stdout).toMatch(/^WAIT  readings\.pagination: /m);
  expect(stderr).toContain(
    'stopped waiting after 0.2 s: nothing in flight can settle the pending required checks (readings.pagination, errors.rate-limit, ',
  );
  expect(await reportsAsked(url, apiKey)).toBe(2);
});

it('--wait waits while a delivery is on its way to the receiver, then grades its answer; the JUnit file says what is left pending and why', async () => {
  const { env, url, apiKey, locationId } = await freshAccount();
  const receiver = await WebhookReceiver.start();
  try {
    let answer!: (value: unknown) => void;
    receiver.script = [{ status: 200, body: '{"ok":true}', until: new Promise((resolve) => (answer = resolve)) }];
    const subscribed = await call(url, apiKey, 'POST', `/v1/locations/${locationId}/subscriptions`, {
      endpoint: receiver.url(),
    });
    expect(subscribed.status).toBe(200);
    await receiver.waitFor(1);
    const file = join(await mkdtemp(join(tmpdir(), 'readiness-')), 'readiness.xml');
    const waiting = new CliProcess(['readiness', '--wait', '60', '--poll-ms', '100', '--junit', file], { env });
    // Well past two looks, it is still waiting for the confirmation's answer.
    await eventually(async () => (await reportsAsked(url, apiKey)) >= 5, 15_000);
    expect(receiver.received).toHaveLength(1);
    answer(undefined);
    const exit = await waiting.exited;
    expect(exit.code).toBe(1);
    expect(waiting.stdout).toMatch(/^PASS  webhooks\.confirmation-answer: /m);
    expect(waiting.stdout).toMatch(/^PASS  webhooks\.check-answer: /m);
    const junit = await parse(await readFile(file, 'utf8'));
    if (!junit || !('testsuite' in junit)) throw new Error('no <testsuites> root');
    const cases = junit.testsuite[0]!.testcase!;
    expect(cases.find((c) => c.name === 'webhooks.confirmation-answer')).toEqual(
      expect.not.objectContaining({ failure: expect.anything() }),
    );
    // The token is with the receiver, which never confirms: nothing in flight settles that.
    expect(cases.find((c) => c.name === 'subscriptions.confirmed')!.failure![0]!.message).toBe(
      'pending: nothing in flight could settle it; to settle it: Subscribe an endpoint of your receiver and confirm it with the token the confirmation POST carries.',
    );
    expect(junit).toMatchObject({ failures: 7, skipped: 5 });
  } finally {
    await receiver.close();
  }
}, 30_000);

it('--markdown appends the report as a table, --annotate prints an annotation per required check failed or pending; a bad level exits 2', async () => {
  const { env } = await freshAccount();
  const summary = join(await mkdtemp(join(tmpdir(), 'summary-')), 'summary.md');
  await writeFile(summary, '# Earlier step\n');
  const { code, stdout } = await runCliProcess(['readiness', '--markdown', summary, '--annotate', 'warning'], { env });
  expect(code).toBe(1);
  const markdown = await readFile(summary, 'utf8');
  expect(markdown).toMatch(
    /^# Earlier step\n### Integration readiness: not ready \(9 required checks failed or pending\)\n/,
  );
  expect(markdown.split('\n').filter((l) => l.startsWith('| '))).toHaveLength(15);
  expect(stdout.match(/^::warning title=readiness%3A \S+ pending::/gm)).toHaveLength(9);
  const bad = await runCliProcess(['readiness', '--annotate', 'loud'], { env });
  expect(bad.code).toBe(2);
  expect(bad.stderr).toMatch(/--annotate.*loud/);
});

it.each([
  [['readiness', '--wait', 'soon'], /--wait must be a number of at least 0; got "soon"/],
  [['readiness', 'nope'], /too many arguments for 'readiness'|unknown command 'nope'/],
])('%j exits 2 with a message', async (args, message) => {
  const { code, stderr } = await runCliProcess(args);
  expect(code).toBe(2);
  expect(stderr).toMatch(message);
});
