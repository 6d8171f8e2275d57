import { runCliProcess } from '../helpers/cli-process.js';
import { startTestSandbox, stopAllSandboxes } from '../helpers/start-sandbox.js';

/** `water-sandbox readiness`, `readiness reset` and `readiness drill` as child processes against a started sandbox. */

afterAll(stopAllSandboxes);

async function freshAccount(): Promise<{ env: Record<string, string>; url: string; apiKey: string; locationId: string }> {
  const sandbox = await startTestSandbox();
  const res = await fetch(`${sandbox.url}/sandbox/accounts`, { method: 'POST' });
  const account = (await res.json()) as { apiKey: string; locations: { locationId: string }[] };
  return { env: { SANDBOX_URL: sandbox.url, WATER_API_KEY: account.apiKey }, url: sandbox.url, apiKey: account.apiKey, locationId: account.locations[0]!.locationId };
}

const call = (url: string, apiKey: string, method: string, path: string, body?: unknown): Promise<Response> =>
  fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

it('prints the checklist of a fresh account and exits 1: required checks are pending', async () => {
  const { env } = await freshAccount();
  const { code, stdout } = await runCliProcess(['readiness'], { env });
  expect(code).toBe(1);
  expect(stdout).toMatch(/^Integration readiness of account \S+, since \S+$/m);
  expect(stdout).toMatch(/^N\/A   oauth\.token-exchange: OAuth: the authorization code is exchanged and the access token used$/m);
  expect(stdout).toMatch(/^WAIT  errors\.rate-limit: .*\n {8}to show it: Run the rate-limit drill and let your client make its next \/v1 calls\. \(docs\/readiness\.md#errorsrate-limit\)$/m);
  expect(stdout).toMatch(/^WAIT  polling\.interval \(optional\): /m);
  expect(stdout).toContain('0 passed, 0 failed, 12 pending, 2 not applicable: not ready (9 required checks failed or pending)');
});

it('readiness drill runs a drill and says what it set up; an unknown drill exits 2 naming the drills', async () => {
  const { env, url, apiKey } = await freshAccount();
  const ran = await runCliProcess(['readiness', 'drill', 'rate-limit'], { env });
  expect(ran).toMatchObject({ code: 0, stdout: 'rate-limit: the next 3 /v1 requests answer 429 with Retry-After: 2\n' });
  expect((await call(url, apiKey, 'GET', '/v1/locations')).status).toBe(429);
  const unknown = await runCliProcess(['readiness', 'drill', 'flood'], { env });
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain('drill must be one of expire-tokens, rate-limit, server-errors, duplicate-delivery, out-of-order; got "flood"');
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

it('--wait asks again while a required check is pending, until the time is up (the naive sample shows it settling)', async () => {
  const { env, url, apiKey } = await freshAccount();
  const { code, stdout } = await runCliProcess(['readiness', '--wait', '1', '--poll-ms', '200'], { env });
  expect(code).toBe(1);
  expect(stdout).toMatch(/^WAIT  readings\.pagination: /m);
  const asked = (await (await call(url, apiKey, 'GET', '/sandbox/requests?path=/sandbox/readiness')).json()) as { requests: unknown[] };
  expect(asked.requests.length).toBeGreaterThanOrEqual(4);
});

it.each([
  [['readiness', '--wait', 'soon'], /--wait must be a number of at least 0; got "soon"/],
  [['readiness', 'nope'], /too many arguments for 'readiness'|unknown command 'nope'/],
])('%j exits 2 with a message', async (args, message) => {
  const { code, stderr } = await runCliProcess(args);
  expect(code).toBe(2);
  expect(stderr).toMatch(message);
});
