import { FAILED_LOGINS_PER_ADDRESS, FAILED_TOKEN_REQUESTS_PER_ADDRESS } from '../../src/auth/throttle.js';
import type { RunningSandbox } from '../../src/server.js';
import { expectAtMostChecked } from '../helpers/bursts.js';
import { DEMO_CLIENT, DEMO_USER } from '../helpers/demo.js';
import { basicAuth, formFields, loginPath } from '../helpers/oauth.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { replicaEnv, startReplica } from '../helpers/replicas.js';

// The sign-in and token throttles count an attempt in Redis before they check it, so parallel
// attempts spread over several replicas cannot check more than the limit between them (a
// check-then-count throttle lets every one of them through).

let redis: TestRedis;
const running: RunningSandbox[] = [];

beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis.dispose();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
});

async function replicas(n: number): Promise<RunningSandbox[]> {
  const env = replicaEnv(redis, redis.prefix());
  const all = await Promise.all(Array.from({ length: n }, () => startReplica(env)));
  running.push(...all);
  return all;
}

/** A sign-in form opened on `replica`: its CSRF cookie and fields. */
async function openForm(replica: RunningSandbox): Promise<{ cookie: string; fields: Record<string, string> }> {
  const page = await fetch(`${replica.url}${loginPath()}`);
  return { cookie: page.headers.get('set-cookie')!.split(';')[0]!, fields: formFields(await page.text()) };
}

describe('the throttles across replicas', () => {
  it(`let at most ${FAILED_LOGINS_PER_ADDRESS} of ${4 * FAILED_LOGINS_PER_ADDRESS} parallel wrong passwords from one address be checked, spread over three replicas`, async () => {
    const all = await replicas(3);
    const forms = await Promise.all(
      Array.from({ length: 4 * FAILED_LOGINS_PER_ADDRESS }, (_, i) => openForm(all[i % all.length]!)),
    );
    const statuses = await Promise.all(
      forms.map(async ({ cookie, fields }, i) => {
        // A form opened on one replica is posted to the next: the CSRF secret and the counts are shared.
        const res = await fetch(`${all[(i + 1) % all.length]!.url}/login`, {
          method: 'POST',
          redirect: 'manual',
          headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '203.0.113.50' },
          body: new URLSearchParams({ ...fields, email: DEMO_USER.email, password: 'wrong' }),
        });
        await res.text();
        return res.status;
      }),
    );
    expectAtMostChecked(FAILED_LOGINS_PER_ADDRESS, statuses, 422);
  });

  it(`let at most ${FAILED_TOKEN_REQUESTS_PER_ADDRESS} of ${3 * FAILED_TOKEN_REQUESTS_PER_ADDRESS} parallel code guesses from one address be checked, spread over two replicas`, async () => {
    const all = await replicas(2);
    const statuses = await Promise.all(
      Array.from({ length: 3 * FAILED_TOKEN_REQUESTS_PER_ADDRESS }, async (_, i) => {
        const res = await fetch(`${all[i % all.length]!.url}/oauth2/token`, {
          method: 'POST',
          headers: {
            authorization: basicAuth(DEMO_CLIENT.clientId, DEMO_CLIENT.clientSecret),
            'content-type': 'application/x-www-form-urlencoded',
            'x-forwarded-for': '203.0.113.51',
          },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            code: `guess-${i}`,
            redirect_uri: 'waterapp://callback',
          }),
        });
        await res.text();
        return res.status;
      }),
    );
    expectAtMostChecked(FAILED_TOKEN_REQUESTS_PER_ADDRESS, statuses, 400);
  });
});
