import type { DestinationStream } from 'pino';
import request from 'supertest';

import { createLogger } from '../../src/core/logger.js';
import { AddressGuard, type ResolvedAddress } from '../../src/webhooks/address-policy.js';
import { createWebhookSender } from '../../src/webhooks/sender.js';
import { useAppsAndReceivers } from '../helpers/app-and-receiver.js';
import { type buildTestApp, deliveriesIn, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';
import { testResolve, type TestName } from '../helpers/loopback-only-sender.js';
import { refreshRequest, registerClient, signInThrough } from '../helpers/oauth-clients.js';
import { refusedDelivery } from '../helpers/refused-delivery.js';
import type { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { givenSubscription, startAlert } from '../webhooks/support.js';

// An attacker's view of a hosted sandbox: every way to make the sandbox's own requests reach an
// address that is not public. Each is refused, nothing reaches the receiver listening there,
// and the delivery log holds the rule, never an answer.

const HOSTED = { ENDPOINT_POLICY: 'any', BLOCK_PRIVATE_ENDPOINTS: 'true', WEBHOOK_TIMEOUT_MS: '3000' };

const v4 = (address: string): ResolvedAddress[] => [{ address, family: 4 }];
const v6 = (address: string): ResolvedAddress[] => [{ address, family: 6 }];

interface Refused {
  name: string;
  answer: ResolvedAddress[];
  words: string;
}
const refused = (name: string, answer: ResolvedAddress[], words: string): Refused => ({ name, answer, words });
const RESERVED = 'a reserved address (documentation, benchmarking or future use)';

/** Names that resolve to each refused range, with the words the refusal uses. */
const REFUSED: Refused[] = [
  refused('vm.test', v4('127.0.0.1'), 'a loopback address'),
  refused('loopback-elsewhere.test', v4('127.8.9.10'), 'a loopback address'),
  refused('loopback6.test', v6('::1'), 'a loopback address'),
  refused('ten.test', v4('10.0.0.5'), 'a private address'),
  refused('one-seven-two.test', v4('172.16.3.4'), 'a private address'),
  refused('home-router.test', v4('192.168.1.20'), 'a private address'),
  refused('metadata.test', v4('169.254.169.254'), 'a link-local address'),
  refused('link-local6.test', v6('fe80::1'), 'a link-local address'),
  refused('metadata6.test', v6('fd00:ec2::254'), 'a unique-local address'),
  refused('cgnat.test', v4('100.64.0.1'), 'a carrier-grade NAT address'),
  refused('multicast.test', v4('224.0.0.251'), 'a multicast address'),
  refused('multicast6.test', v6('ff02::1'), 'a multicast address'),
  refused('unspecified.test', v4('0.0.0.0'), 'an unspecified address'),
  refused('unspecified6.test', v6('::'), 'an unspecified address'),
  refused('broadcast.test', v4('255.255.255.255'), 'the broadcast address'),
  refused('mapped.test', v6('::ffff:127.0.0.1'), 'an IPv4-mapped form of 127.0.0.1, a loopback address'),
  refused('mapped-private.test', v6('::ffff:10.1.2.3'), 'an IPv4-mapped form of 10.1.2.3, a private address'),
  refused('nat64-metadata.test', v6('64:ff9b::a9fe:a9fe'), 'a NAT64 form of 169.254.169.254, a link-local address'),
  refused('compatible.test', v6('::7f00:1'), 'an IPv4-compatible form of 127.0.0.1, a loopback address'),
  refused(
    'compatible-public.test',
    v6('::808:808'),
    'an IPv4-compatible form of 8.8.8.8, a deprecated form no endpoint uses',
  ),
  refused('six-to-four.test', v6('2002:a9fe:a9fe::1'), 'a 6to4 form of 169.254.169.254, a link-local address'),
  refused('teredo.test', v6('2001:0:4136:e378:8000:63bf:80ff:fffe'), 'a Teredo form of 127.0.0.1, a loopback address'),
  refused('site-local.test', v6('fec0::1'), 'a site-local address (deprecated, private like fc00::/7)'),
  refused('nat64-local.test', v6('64:ff9b:1::a00:1'), 'a special-purpose address (rfc6052)'),
  refused('documentation.test', v4('192.0.2.10'), RESERVED),
  refused('documentation2.test', v4('198.51.100.7'), RESERVED),
  refused('documentation3.test', v4('203.0.113.9'), RESERVED),
  refused('documentation6.test', v6('2001:db8::1'), RESERVED),
  refused('benchmarking.test', v4('198.18.0.1'), RESERVED),
  refused('benchmarking6.test', v6('2001:2::1'), 'a benchmarking address'),
  // One bad address among good ones is enough.
  refused('mixed.test', [...v4('93.184.215.14'), ...v4('10.9.8.7')], 'a private address'),
];

const NAMES: Record<string, TestName> = Object.fromEntries(REFUSED.map((r) => [r.name, r.answer]));

const { buildApp, startReceiver: receiver } = useAppsAndReceivers();
const app = (
  env: Record<string, string>,
  options: Omit<Parameters<typeof buildTestApp>[0] & object, 'env'> = {},
): Promise<TestApp> => buildApp({ env, ...options });

/** A URL on the receiver's port with another host. */
const onHost = (r: WebhookReceiver, host: string, path = '/hook'): string => {
  const url = new URL(r.url(path));
  url.hostname = host;
  return url.toString();
};

const subscribe = (t: TestApp, endpoint: string): request.Test =>
  request(t.app).post(`/v1/locations/${DEMO_LOCATION_ID}/subscriptions`).set(bearer(DEMO_API_KEY)).send({ endpoint });

/** Subscriptions stored as they would be had the address been public at subscription time, then an alert: the connection is what is checked. */
async function alertTo(t: TestApp, endpoints: readonly string[]): Promise<Awaited<ReturnType<typeof deliveriesIn>>> {
  for (const endpoint of endpoints) await givenSubscription(t, endpoint);
  await startAlert(t, { type: 'highLeak' }).expect(201);
  await t.deps.dispatcher.drain();
  return (await deliveriesIn(t)).filter((d) => d.kind === 'alert');
}

describe('host names that resolve to a refused range', () => {
  it.each(REFUSED)(
    '$name ($answer.0.address) is refused at subscription with a 400 naming the rule',
    async ({ name, answer, words }) => {
      const t = await app(HOSTED, { resolve: testResolve(NAMES) });
      const r = await receiver();
      const res = await subscribe(t, onHost(r, name)).expect(400);
      const refused = answer.find((a) => !a.address.startsWith('93.'))!.address;
      expect(res.body).toMatchObject({ error: 'invalid_parameter', parameter: 'endpoint' });
      expect(res.body.message).toBe(
        `endpoint must be a public address on this hosted sandbox (BLOCK_PRIVATE_ENDPOINTS=true): ${name} resolves to ${refused}, ${words}`,
      );
      expect(r.received).toEqual([]);
    },
  );

  it('each is refused at connection: the delivery fails at once with the rule, no answer excerpt, no retry, and nothing reaches the receiver', async () => {
    const t = await app(HOSTED, { resolve: testResolve(NAMES) });
    const r = await receiver();
    const deliveries = await alertTo(
      t,
      REFUSED.map((x) => onHost(r, x.name)),
    );
    expect(deliveries).toHaveLength(REFUSED.length);
    for (const { name, answer, words } of REFUSED) {
      const delivery = deliveries.find((d) => new URL(d.target).hostname === name)!;
      const refused = answer.find((a) => !a.address.startsWith('93.'))!.address;
      expect({ name, delivery }).toEqual({
        name,
        delivery: refusedDelivery(`blocked: ${name} resolves to ${refused}, ${words} (BLOCK_PRIVATE_ENDPOINTS)`, {
          warnings: [],
        }),
      });
    }
    // Nothing is retried later either.
    t.clock.advance(3_600_000);
    await t.deps.dispatcher.drain();
    expect((await deliveriesIn(t)).every((d) => d.attempts.length === 1)).toBe(true);
    expect(r.received).toEqual([]);
  });

  it("names the example of the report exactly, and /sandbox/deliveries shows the partner that and nothing of the internal server's answer", async () => {
    const t = await app(HOSTED, { resolve: testResolve(NAMES) });
    const r = await receiver();
    r.fallback = { status: 200, body: '{"secret":"internal admin page"}' };
    await alertTo(t, [onHost(r, 'vm.test')]);
    const res = await request(t.app).get('/sandbox/deliveries?kind=alert').set(bearer(DEMO_API_KEY)).expect(200);
    expect(res.body.deliveries[0].attempts[0].error).toBe(
      'blocked: vm.test resolves to 127.0.0.1, a loopback address (BLOCK_PRIVATE_ENDPOINTS)',
    );
    expect(JSON.stringify(res.body)).not.toContain('internal admin page');
    expect(r.received).toEqual([]);
  });

  it('a confirmation refused at connection is not followed by the GET check', async () => {
    const { t, r } = await subscribedThroughRebinding();
    const deliveries = await deliveriesIn(t);
    expect(deliveries.map((d) => [d.kind, d.state])).toEqual([['confirmation', 'failed']]);
    expect(r.received).toEqual([]);
  });

  it('with BLOCK_PRIVATE_ENDPOINTS=false the same names reach the loopback receiver, as on a laptop today', async () => {
    const t = await app({ ENDPOINT_POLICY: 'any' }, { resolve: testResolve(NAMES) });
    const r = await receiver();
    await subscribe(t, onHost(r, 'vm.test')).expect(200);
    const deliveries = await alertTo(t, [onHost(r, 'vm.test', '/a'), onHost(r, 'mapped.test', '/b')]);
    expect(deliveries.map((d) => d.state)).toEqual(['delivered', 'delivered']);
    expect(r.received.map((x) => x.path).sort()).toEqual(['/a', '/b', '/hook', '/hook']);
  });
});

/** A name whose first `answers.length - 1` resolutions give the first answers, and every later one the last. */
function onceThen(...answers: ResolvedAddress[][]): { answer: TestName; readonly asked: number } {
  let asked = 0;
  return {
    answer: () => answers[Math.min(asked++, answers.length - 1)]!,
    get asked() {
      return asked;
    },
  };
}

/**
 * A hosted sandbox where rebind.test answers a public address once and 127.0.0.1 from then on,
 * a receiver on loopback, and a subscription of it under that name, its confirmation attempted.
 */
async function subscribedThroughRebinding(): Promise<{
  t: TestApp;
  r: WebhookReceiver;
  rebinding: ReturnType<typeof onceThen>;
}> {
  const rebinding = onceThen(v4('93.184.215.14'), v4('127.0.0.1'));
  const t = await app(HOSTED, { resolve: testResolve({ 'rebind.test': rebinding.answer }) });
  const r = await receiver();
  await subscribe(t, onHost(r, 'rebind.test')).expect(200);
  await t.deps.dispatcher.drain();
  return { t, r, rebinding };
}

describe('a name whose answer changes (DNS rebinding)', () => {
  it('public when subscribing, loopback when connecting: the subscription is accepted, the connection refused, nothing delivered', async () => {
    const { t, r, rebinding } = await subscribedThroughRebinding();
    const [confirmation] = await deliveriesIn(t);
    expect(confirmation).toEqual(
      refusedDelivery('blocked: rebind.test resolves to 127.0.0.1, a loopback address (BLOCK_PRIVATE_ENDPOINTS)'),
    );
    expect(rebinding.asked).toBe(2);
    expect(r.received).toEqual([]);
  });

  it('the connection goes to the address that was checked: one resolution per connection, never a second one after the check', async () => {
    // 127.0.0.1 stands in for a public address here (the receiver listens there); a second
    // resolution would give 127.0.0.2, where nothing listens, and the delivery would fail.
    const rebinding = onceThen(v4('127.0.0.1'), v4('127.0.0.2'));
    const resolve = testResolve({ 'public.test': rebinding.answer });
    const sender = createWebhookSender({
      guard: new AddressGuard({ resolve, treatAsPublic: (a) => a === '127.0.0.1' || a === '127.0.0.2' }),
    });
    const t = await app(HOSTED, { resolve, overrides: { sender } });
    const r = await receiver();
    const [delivery] = await alertTo(t, [onHost(r, 'public.test')]);
    expect(delivery).toMatchObject({ state: 'delivered' });
    expect(r.received).toHaveLength(1);
    expect(rebinding.asked).toBe(1);
  });
});

describe('address literals, however they are spelled', () => {
  const SPELLINGS: [string, string][] = [
    ['127.0.0.1', 'blocked: 127.0.0.1 is a loopback address (BLOCK_PRIVATE_ENDPOINTS)'],
    ['2130706433', 'blocked: 127.0.0.1 is a loopback address (BLOCK_PRIVATE_ENDPOINTS)'],
    ['127.1', 'blocked: 127.0.0.1 is a loopback address (BLOCK_PRIVATE_ENDPOINTS)'],
    ['0x7f000001', 'blocked: 127.0.0.1 is a loopback address (BLOCK_PRIVATE_ENDPOINTS)'],
    ['[::1]', 'blocked: [::1] is a loopback address (BLOCK_PRIVATE_ENDPOINTS)'],
    [
      '[::ffff:127.0.0.1]',
      'blocked: [::ffff:7f00:1] is an IPv4-mapped form of 127.0.0.1, a loopback address (BLOCK_PRIVATE_ENDPOINTS)',
    ],
    [
      '[::7f00:1]',
      'blocked: [::7f00:1] is an IPv4-compatible form of 127.0.0.1, a loopback address (BLOCK_PRIVATE_ENDPOINTS)',
    ],
    [
      '[::127.0.0.1]',
      'blocked: [::7f00:1] is an IPv4-compatible form of 127.0.0.1, a loopback address (BLOCK_PRIVATE_ENDPOINTS)',
    ],
    [
      '[2002:7f00:1::]',
      'blocked: [2002:7f00:1::] is a 6to4 form of 127.0.0.1, a loopback address (BLOCK_PRIVATE_ENDPOINTS)',
    ],
    [
      '[fec0::1]',
      'blocked: [fec0::1] is a site-local address (deprecated, private like fc00::/7) (BLOCK_PRIVATE_ENDPOINTS)',
    ],
    [
      '[64:ff9b::127.0.0.1]',
      'blocked: [64:ff9b::7f00:1] is a NAT64 form of 127.0.0.1, a loopback address (BLOCK_PRIVATE_ENDPOINTS)',
    ],
    ['0.0.0.0', 'blocked: 0.0.0.0 is an unspecified address (BLOCK_PRIVATE_ENDPOINTS)'],
    ['169.254.169.254', 'blocked: 169.254.169.254 is a link-local address (BLOCK_PRIVATE_ENDPOINTS)'],
    ['[fd00:ec2::254]', 'blocked: [fd00:ec2::254] is a unique-local address (BLOCK_PRIVATE_ENDPOINTS)'],
  ];

  it.each(SPELLINGS)('http://%s:<port>/ is refused at subscription', async (host) => {
    const t = await app(HOSTED);
    const r = await receiver();
    const res = await subscribe(t, r.url().replace('127.0.0.1', host)).expect(400);
    expect(res.body.message).toMatch(
      /^endpoint must be a public address on this hosted sandbox \(BLOCK_PRIVATE_ENDPOINTS=true\): /,
    );
    expect(r.received).toEqual([]);
  });

  it('each is refused at connection with the address named, and nothing reaches the receiver', async () => {
    const t = await app(HOSTED);
    const r = await receiver();
    const deliveries = await alertTo(
      t,
      SPELLINGS.map(([host]) => r.url(`/${encodeURIComponent(host)}`).replace('127.0.0.1', host)),
    );
    for (const [host, error] of SPELLINGS) {
      const delivery = deliveries.find((d) => d.target.endsWith(`/${encodeURIComponent(host)}`))!;
      expect({ host, delivery }).toEqual({ host, delivery: refusedDelivery(error) });
    }
    expect(r.received).toEqual([]);
  });

  it('localhost and names under .localhost are loopback whatever a resolver says', async () => {
    const t = await app(HOSTED, { resolve: testResolve({ 'app.localhost': v4('93.184.215.14') }) });
    const r = await receiver();
    for (const host of ['localhost', 'app.localhost', 'LOCALHOST.']) {
      const res = await subscribe(t, onHost(r, host)).expect(400);
      expect(res.body.message).toContain('is a loopback name');
    }
  });
});

describe('redirects', () => {
  it('are never followed: a 302 to a private address is the answer, and the address named in Location gets nothing', async () => {
    const internal = await receiver();
    const redirector = await receiver();
    redirector.fallback = {
      status: 302,
      body: '{"moved":true}',
      headers: { Location: internal.url('/latest/meta-data') },
    };
    const resolve = testResolve({ 'public.test': v4('127.0.0.1') });
    // 127.0.0.1 stands in for public addresses: were the redirect followed, the check would let it through.
    const sender = createWebhookSender({
      guard: new AddressGuard({ resolve, treatAsPublic: (a) => a === '127.0.0.1' }),
    });
    const t = await app(HOSTED, { resolve, overrides: { sender } });
    const [delivery] = await alertTo(t, [onHost(redirector, 'public.test')]);
    expect(delivery!.attempts[0]).toMatchObject({ statusCode: 302, error: 'HTTP 302: redirects are not followed' });
    expect(redirector.received).toHaveLength(1);
    expect(internal.received).toEqual([]);
  });
});

describe('token delivery to a redirect URI', () => {
  async function tokenDeliveryTo(redirectUri: string, names: Record<string, TestName> = {}) {
    const lines: string[] = [];
    const destination: DestinationStream = { write: (line: string) => void lines.push(line) };
    const t = await app(HOSTED, { resolve: testResolve(names), logger: createLogger('info', destination) });
    const client = await registerClient(t.app, { redirectUri });
    const tokens = await signInThrough(t.app, client, redirectUri);
    await t.deps.dispatcher.drain();
    const deliveries = (await deliveriesIn(t)).filter((d) => d.kind === 'token');
    return { t, client, tokens, deliveries, lines };
  }

  it('on a name that resolves to a private address: the token request succeeds, the POST is refused, and the log keeps no token', async () => {
    const r = await receiver();
    const { tokens, deliveries, lines } = await tokenDeliveryTo(
      onHost(r, 'callback.test', '/callback').replace('http:', 'https:'),
      { 'callback.test': v4('10.20.30.40') },
    );
    expect(tokens.token_type).toBe('Bearer');
    expect(deliveries).toEqual([
      refusedDelivery('blocked: callback.test resolves to 10.20.30.40, a private address (BLOCK_PRIVATE_ENDPOINTS)'),
    ]);
    expect(r.received).toEqual([]);
    const warned = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l['msg'] === 'webhook attempt refused: the endpoint is not a public address');
    expect(warned).toEqual([
      expect.objectContaining({
        level: 'warn',
        kind: 'token',
        rule: 'BLOCK_PRIVATE_ENDPOINTS',
        range: 'private',
        address: '10.20.30.40',
      }),
    ]);
    expect(lines.join('\n')).not.toContain(tokens.access_token);
    expect(lines.join('\n')).not.toContain(tokens.refresh_token);
  });

  it('on localhost, where the receiver listens: refused, and a refresh is refused the same way', async () => {
    const r = await receiver();
    const redirectUri = onHost(r, 'localhost', '/callback');
    const { t, client, tokens, deliveries } = await tokenDeliveryTo(redirectUri);
    expect(deliveries.map((d) => d.attempts[0]?.error)).toEqual([
      'blocked: localhost is a loopback name (BLOCK_PRIVATE_ENDPOINTS)',
    ]);
    await refreshRequest(t.app, tokens.refresh_token, client).expect(200);
    await t.deps.dispatcher.drain();
    expect((await deliveriesIn(t)).filter((d) => d.kind === 'token').map((d) => d.state)).toEqual(['failed', 'failed']);
    expect(r.received).toEqual([]);
  });
});

describe("the operator's view", () => {
  it('/metrics counts refused endpoints by rule, range and where', async () => {
    const t = await app(HOSTED, { resolve: testResolve(NAMES) });
    const r = await receiver();
    await subscribe(t, onHost(r, 'metadata.test')).expect(400);
    await subscribe(t, onHost(r, 'ten.test')).expect(400);
    await alertTo(t, [onHost(r, 'vm.test'), onHost(r, 'cgnat.test')]);
    const strict = await app({ ENDPOINT_POLICY: 'https-only' });
    await subscribe(strict, r.url()).expect(400);
    const metrics = (await request(t.app).get('/metrics').expect(200)).text;
    expect(metrics).toContain(
      'sandbox_refused_endpoints_total{rule="BLOCK_PRIVATE_ENDPOINTS",range="linkLocal",at="subscription"} 1',
    );
    expect(metrics).toContain(
      'sandbox_refused_endpoints_total{rule="BLOCK_PRIVATE_ENDPOINTS",range="private",at="subscription"} 1',
    );
    expect(metrics).toContain(
      'sandbox_refused_endpoints_total{rule="BLOCK_PRIVATE_ENDPOINTS",range="loopback",at="connection"} 1',
    );
    expect(metrics).toContain(
      'sandbox_refused_endpoints_total{rule="BLOCK_PRIVATE_ENDPOINTS",range="carrierGradeNat",at="connection"} 1',
    );
    const strictMetrics = (await request(strict.app).get('/metrics').expect(200)).text;
    expect(strictMetrics).toContain(
      'sandbox_refused_endpoints_total{rule="ENDPOINT_POLICY",range="https-only",at="subscription"} 1',
    );
  });
});
