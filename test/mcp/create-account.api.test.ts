import request from 'supertest';

import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY } from '../helpers/demo.js';

// create_account on a hosted sandbox: the limits of POST /sandbox/accounts, counted together with
// it (the same address's accounts, made either way), and refused when the operator set ADMIN_TOKEN.

const HOSTED = { PUBLIC_URL: 'https://sandbox.example.com' };
const ADDRESS = '203.0.113.20';

const apps: TestApp[] = [];
afterEach(async () => {
  for (const t of apps.splice(0)) await t.deps.dispatcher.idle();
});
async function hosted(env: Record<string, string> = {}): Promise<TestApp> {
  const t = await buildTestApp({ env: { ...HOSTED, ...env } });
  apps.push(t);
  return t;
}

/** tools/call create_account as an agent behind the hosted sandbox's proxy sends it. */
async function createAccountTool(t: TestApp, args: Record<string, unknown>) {
  const answer = await request(t.app)
    .post('/mcp')
    .set('Host', 'sandbox.example.com')
    .set('X-Forwarded-For', ADDRESS)
    .set(bearer(DEMO_API_KEY))
    .set('Accept', 'application/json, text/event-stream')
    .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_account', arguments: args } })
    .expect(200);
  const { result } = answer.body as { result: { isError?: boolean; content: { text: string }[] } };
  return { isError: result.isError === true, json: JSON.parse(result.content[0]!.text) as Record<string, unknown> };
}

it('counts with POST /sandbox/accounts under ACCOUNT_CREATION_LIMIT: past it, a 429 tool error naming it', async () => {
  const t = await hosted({ ACCOUNT_CREATION_LIMIT: '2' });
  await request(t.app).post('/sandbox/accounts').set('X-Forwarded-For', ADDRESS).send({}).expect(201);
  const made = await createAccountTool(t, { name: 'Agent household' });
  expect(made).toMatchObject({ isError: false, json: { name: 'Agent household', apiKey: expect.any(String) } });
  expect(await createAccountTool(t, {})).toEqual({
    isError: true,
    json: {
      status: 429,
      error: 'rate_limited',
      message: expect.stringMatching(/this sandbox allows 2 an hour \(ACCOUNT_CREATION_LIMIT=2\)/),
    },
  });
  await request(t.app).post('/sandbox/accounts').set('X-Forwarded-For', ADDRESS).send({}).expect(429);
});

it('asks for at most MAX_LOCATIONS_PER_ACCOUNT locations, 5 when hosted: more is a 409 tool error naming it', async () => {
  const t = await hosted();
  expect(await createAccountTool(t, { locations: 6 })).toMatchObject({
    isError: true,
    json: { status: 409, error: 'limit_reached', message: expect.stringMatching(/MAX_LOCATIONS_PER_ACCOUNT=5/) },
  });
  expect((await createAccountTool(t, { locations: 5 })).isError).toBe(false);
});

it('is refused with 403 when the operator set ADMIN_TOKEN: an account key cannot make accounts', async () => {
  const t = await hosted({ ADMIN_TOKEN: 'an-operator-secret-of-enough-length-0123456789' });
  expect(await createAccountTool(t, {})).toEqual({
    isError: true,
    json: { status: 403, error: 'admin_token_required', message: expect.stringMatching(/ADMIN_TOKEN/) },
  });
});
