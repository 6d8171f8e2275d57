import {
  AccountClient,
  ReadinessError,
  SandboxError,
  WaitTimeoutError,
  WaterSandbox,
  formatChecklist,
  type Delivery,
  type SandboxAccount,
} from '../../src/client/index.js';
import type { RunningSandbox } from '../../src/server.js';
import { runCliProcess } from '../helpers/cli-process.js';
import { CountingProxy } from '../helpers/counting-proxy.js';
import { DEMO_API_KEY } from '../helpers/demo.js';
import { startTestSandbox, stopAllSandboxes } from '../helpers/start-sandbox.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * water-sandbox/client against a whole sandbox on a free port, as a partner's test uses it:
 * real HTTP, real deliveries to a real receiver, no sleeps (its waits poll with a deadline).
 */

let running: RunningSandbox;
let sandbox: WaterSandbox;
let receiver: WebhookReceiver;

beforeAll(async () => {
  running = await startTestSandbox();
  sandbox = new WaterSandbox(`${running.url}/`);
  receiver = await WebhookReceiver.start();
});

afterAll(async () => {
  await receiver.close();
  await stopAllSandboxes();
});

const payloadOf = (delivery: Delivery): Record<string, unknown> => delivery.payload as Record<string, unknown>;

/** Subscribes the receiver to the account's first location and confirms it with the token the sandbox sent. */
async function confirmedSubscription(account: SandboxAccount, endpoint = receiver.url()): Promise<string> {
  const location = account.locations[0]!.locationId;
  const subscription = await account.subscriptions.create(location, endpoint);
  expect(subscription).toMatchObject({ locationId: location, endpoint, status: 'pending' });
  const confirmation = await account.deliveries.waitFor((d) => d.subscriptionId === subscription.subscriptionId, {
    filter: { kind: 'confirmation' },
  });
  const { confirmationUrl, confirmationToken } = payloadOf(confirmation) as {
    confirmationUrl: string;
    confirmationToken: string;
  };
  expect(confirmationUrl).toBe(
    `${running.url.replace('127.0.0.1', 'localhost')}/v1/subscriptions/${subscription.subscriptionId}/confirm?confirmationToken=${confirmationToken}`,
  );
  expect(await account.subscriptions.confirm(subscription.subscriptionId, confirmationToken)).toMatchObject({
    status: 'confirmed',
  });
  expect((await account.subscriptions.get(subscription.subscriptionId)).status).toBe('confirmed');
  return subscription.subscriptionId;
}

describe('water-sandbox/client', () => {
  it('checks the URL it is given and reads /healthz', async () => {
    expect(() => new WaterSandbox('localhost:8080')).toThrow(
      'the sandbox URL must be an http or https URL such as http://localhost:8080; got "localhost:8080"',
    );
    expect(sandbox.url).toBe(running.url);
    expect(await sandbox.health()).toEqual({
      status: 'ok',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      store: 'memory',
    });
  });

  it('creates an account with its API key, login user and locations, and gives it as the CLI prints it', async () => {
    const account = await sandbox.createAccount({ seed: 7, locations: 3, name: 'client test' });
    expect(account).toMatchObject({
      name: 'client test',
      seed: 7,
      apiKey: expect.any(String),
      user: { email: expect.any(String), password: expect.any(String) },
    });
    expect(account.locations).toHaveLength(3);
    const other = await sandbox.createAccount();
    expect(other.accountId).not.toBe(account.accountId);
    expect(other.locations).toHaveLength(2);

    const cli = await runCliProcess(['accounts', 'create', '--format', 'env', '--sandbox', running.url]);
    expect(cli.code).toBe(0);
    const printed = cli.stdout
      .trim()
      .split('\n')
      .map((line) => line.slice(0, line.indexOf('=')));
    expect(Object.keys(account.env())).toEqual(printed);
    expect(account.env()).toMatchObject({
      SANDBOX_URL: running.url,
      WATER_API_KEY: account.apiKey,
      WATER_LOCATION_ID: account.locations[0]!.locationId,
    });
  });

  it('throws the sandbox refusal as a SandboxError with its status, code and message', async () => {
    const account = await sandbox.createAccount();
    const error = await account.alerts.start('no-such-location', 'lowLeak').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxError);
    expect(error).toMatchObject({ status: 404, code: 'not_found' });
    expect((error as SandboxError).message).toMatch(
      / \(POST \/sandbox\/locations\/no-such-location\/alerts: 404 not_found\)$/,
    );
    const closed = await WebhookReceiver.start();
    const port = closed.port;
    await closed.close();
    const unreachable = await new WaterSandbox(`http://127.0.0.1:${port}`).health().catch((e: unknown) => e);
    expect(unreachable).toMatchObject({
      name: 'SandboxError',
      status: null,
      message: `cannot reach the sandbox at http://127.0.0.1:${port} (ECONNREFUSED)`,
    });
  });

  it('starts and ends alerts, and waits for their deliveries to the receiver', async () => {
    const account = await sandbox.createAccount();
    const subscriptionId = await confirmedSubscription(account);
    const location = account.locations[0]!.locationId;
    const started = await account.alerts.start(location, 'highLeak', { peakValue: 6 });
    expect(started).toMatchObject({
      outcome: 'started',
      type: 'highLeak',
      active: true,
      peakValue: 6,
      notifications: 1,
    });
    const ended = await account.alerts.end(location, started.alertId);
    expect(ended).toMatchObject({ alertId: started.alertId, active: false, notifications: 1 });

    const endDelivered = await account.deliveries.waitFor(
      (d) => d.state === 'delivered' && payloadOf(d)['active'] === false,
      { filter: { kind: 'alert', subscriptionId } },
    );
    expect(payloadOf(endDelivered)).toMatchObject({
      subscriptionId,
      locationId: location,
      type: 'highLeak',
      active: false,
    });
    const alerts = await account.deliveries.list({ kind: 'alert' });
    expect(alerts.map((d) => payloadOf(d)['active']).sort()).toEqual([false, true]);
    await receiver.waitForMatching(
      (r) =>
        (r.body as { active?: boolean } | null)?.active === false &&
        (r.body as { subscriptionId?: string }).subscriptionId === subscriptionId,
    );

    // Another account sees none of them.
    expect(await (await sandbox.createAccount()).deliveries.list()).toEqual([]);
  });

  it('gives up waiting at the deadline, saying what the log held', async () => {
    const account = await sandbox.createAccount();
    await confirmedSubscription(account);
    const error = await account.deliveries
      .waitFor((d) => d.kind === 'alert', { timeoutMs: 300, intervalMs: 50 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect((error as Error).message).toMatch(
      /^waited 300 ms: no delivery matching \{\} and the predicate; the log held 2: /,
    );
  });

  it("moves the account's clock: advance, set (frozen), back to real time", async () => {
    const account = await sandbox.createAccount();
    const before = await account.clock.now();
    expect(before).toMatchObject({ offsetSeconds: 0, frozen: false });
    const advanced = await account.clock.advance(7200);
    expect(advanced.offsetSeconds).toBeGreaterThanOrEqual(7199);
    const set = await account.clock.set(new Date('2030-01-02T03:04:05Z'), { frozen: true });
    expect(set).toMatchObject({ now: '2030-01-02T03:04:05.000Z', frozen: true });
    expect((await account.clock.set('2030-01-03T00:00:00Z', { frozen: true })).now).toBe('2030-01-03T00:00:00.000Z');
    expect(await account.clock.real()).toMatchObject({ offsetSeconds: 0, frozen: false });
  });

  it('queues faults and a rate limit, lists and clears them; runs drills', async () => {
    const account = await sandbox.createAccount();
    const fault = await account.faults.add({ path: '/v1/locations', status: 503, times: 2 });
    expect(fault).toMatchObject({ path: '/v1/locations', status: 503, times: 2 });
    expect(await account.faults.add({ rateLimit: { requests: 10, perSeconds: 60 } })).toEqual({
      rateLimit: { requests: 10, perSeconds: 60 },
    });
    const listed = await account.faults.list();
    expect(listed.faults).toHaveLength(1);
    expect(listed.rateLimit).toEqual({ requests: 10, perSeconds: 60 });
    const answer = await fetch(`${running.url}/v1/locations`, {
      headers: { authorization: `Bearer ${account.apiKey}` },
    });
    expect(answer.status).toBe(503);
    expect(await account.faults.clear()).toBe(2);
    expect(await account.faults.list()).toEqual({ faults: [], rateLimit: null });

    const drill = await account.drills.run('rate-limit');
    expect(drill).toMatchObject({ drill: 'rate-limit', faultIds: [expect.any(String)] });
    const refused = await account.drills.run('duplicate-delivery').catch((e: unknown) => e);
    expect(refused).toMatchObject({ name: 'SandboxError', status: 409 });
  });

  it('plays a scenario at once on the account clock', async () => {
    const account = await sandbox.createAccount();
    await confirmedSubscription(account);
    const run = await account.scenarios.play('away-leak', account.locations[0]!.locationId);
    expect(run).toMatchObject({ scenario: 'away-leak', state: 'completed', nextStep: run.steps });
    expect(run.log.every((entry) => entry.ok)).toBe(true);
    const delivered = await account.deliveries.waitFor(
      (d) => d.state === 'delivered' && payloadOf(d)['active'] === false,
      { filter: { kind: 'alert' } },
    );
    expect(payloadOf(delivered)).toMatchObject({ type: 'awayLeak' });
    expect((await account.scenarios.list()).map((s) => s.name)).toContain('away-leak');
  });

  it('asserts readiness: throws each failed or pending required check with its evidence and fix, as the CLI prints them', async () => {
    const account = await sandbox.createAccount();
    const report = await account.readiness.report();
    expect(report.ready).toBe(false);
    const error = await account.readiness.assertReady().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReadinessError);
    const { checks, message } = error as ReadinessError;
    const blocking = report.checks.filter((c) => c.required && c.status !== 'passed' && c.status !== 'not_applicable');
    expect(checks.map((c) => c.id)).toEqual(blocking.map((c) => c.id));
    expect(message.split('\n')[0]).toBe(
      `the integration is not ready: ${blocking.length} required checks failed or pending (account ${account.accountId}, since ${report.since})`,
    );
    // The lines of each check are the CLI's lines of that check.
    const checklist = formatChecklist(report).split('\n');
    for (const check of blocking) {
      const at = checklist.findIndex((line) => line.includes(` ${check.id}: `));
      const own = [checklist[at]!];
      for (let i = at + 1; checklist[i]!.startsWith('        '); i++) own.push(checklist[i]!);
      expect(message).toContain(own.join('\n'));
      expect(own.join('\n')).toContain(`to show it: ${check.fix!}`);
    }
    const cli = await runCliProcess(['readiness', '--sandbox', running.url, '--api-key', account.apiKey]);
    expect(cli.stdout).toBe(formatChecklist(await account.readiness.report()));

    // With every one of them excepted, it is ready.
    const ready = await account.readiness.assertReady({ except: blocking.map((c) => c.id) });
    expect(ready.accountId).toBe(account.accountId);
  });

  it('waits for pending required checks while something in flight could settle them, stops early when nothing can, and judges a failure at once', async () => {
    const account = await sandbox.createAccount();
    const all = (await account.readiness.report()).checks.map((c) => c.id);
    const allBut = (id: (typeof all)[number]): typeof all => all.filter((other) => other !== id);

    // Nothing in flight can confirm a subscription: it says so rather than wait the whole minute.
    const stopped = await account.readiness
      .assertReady({ except: allBut('subscriptions.confirmed'), waitSeconds: 60, intervalMs: 20 })
      .catch((e: unknown) => e);
    expect((stopped as Error).message).toMatch(
      /^the integration is not ready: 1 required check failed or pending \(.*\); stopped waiting after [\d.]+ s: nothing in flight can settle the pending required checks \(subscriptions\.confirmed\)/,
    );
    expect((stopped as Error).message).toMatch(/WAIT {2}subscriptions\.confirmed: /);

    // A confirmation on its way to a receiver that holds it is in flight: it waits through more
    // than two looks (each asks for the pending deliveries) until the receiver answers.
    const proxy = await CountingProxy.start(running.url, (req) => req.url?.startsWith('/sandbox/deliveries?') === true);
    try {
      let answer!: () => void;
      receiver.script.push({ status: 200, until: new Promise<void>((resolve) => (answer = resolve)) });
      const before = receiver.received.length;
      await account.subscriptions.create(account.locations[0]!.locationId, receiver.url());
      await receiver.waitFor(before + 1);
      const waiting = new WaterSandbox(proxy.url)
        .account(account.apiKey)
        .readiness.assertReady({ except: allBut('webhooks.confirmation-answer'), waitSeconds: 60, intervalMs: 20 });
      await Promise.race([proxy.counted(4), waiting]);
      answer();
      const ready = await waiting;
      expect(ready.checks.find((c) => c.id === 'webhooks.confirmation-answer')?.status).toBe('passed');
    } finally {
      await proxy.close();
    }

    // A receiver that answers the confirmation with a 500 fails its check: no waiting changes that.
    receiver.script.push({ status: 500, body: 'no' });
    const failing = await sandbox.createAccount();
    await failing.subscriptions.create(failing.locations[0]!.locationId, receiver.url());
    await failing.deliveries.waitFor((d) => d.attempts.length > 0, { filter: { kind: 'confirmation' } });
    const failed = await failing.readiness
      .assertReady({ except: ['subscriptions.confirmed'], waitSeconds: 5 })
      .catch((e: unknown) => e);
    expect((failed as ReadinessError).checks.find((c) => c.id === 'webhooks.confirmation-answer')).toMatchObject({
      status: 'failed',
    });
    expect((failed as Error).message).toMatch(/FAIL {2}webhooks\.confirmation-answer: .*\n {8}.*500.*\n {8}fix: /);
  });

  it("forwards the account's webhooks to a local URL through a relay, with no network path from the sandbox to it", async () => {
    const account = await sandbox.createAccount();
    const local = await WebhookReceiver.start();
    const forwarded: string[] = [];
    const relay = await account.relays.forward(local.url('/from-relay'), {
      name: 'tests',
      forwarded: (request, reply) =>
        forwarded.push(`${request.method} ${'status' in reply ? reply.status : reply.error}`),
    });
    try {
      expect(relay.endpoint).toMatch(new RegExp(`^http://localhost:${new URL(running.url).port}/relay/tests\\.`));
      const subscriptionId = await confirmedSubscription(account, relay.endpoint);
      await account.alerts.start(account.locations[0]!.locationId, 'lowLeak');
      const [alert] = await local.waitForMatching((r) => (r.body as { type?: string } | null)?.type === 'lowLeak');
      expect(alert).toMatchObject({ method: 'POST', path: '/from-relay', body: { subscriptionId, active: true } });
      expect(forwarded).toContain('POST 200');
    } finally {
      await relay.close();
      await local.close();
    }
    // Closed: nothing answers on the relay any more (the sandbox may take the stream for open
    // for a moment: the attempt then times out waiting for the answer instead).
    await account.alerts.start(account.locations[0]!.locationId, 'highLeak');
    const unanswered = await account.deliveries.waitFor(
      (d) => d.attempts.some((a) => /is not connected|waiting for water-sandbox listen's answer/.test(a.error ?? '')),
      { filter: { kind: 'alert' } },
    );
    expect(unanswered.target).toBe(relay.endpoint);
  });

  it('refuses a relay to a bad key at once, and drives an existing account by its key', async () => {
    await expect(sandbox.account('not-a-key').relays.forward(receiver.url())).rejects.toMatchObject({
      name: 'SandboxError',
      status: 403,
    });
    await expect(sandbox.account(DEMO_API_KEY).relays.forward('ftp://example.com')).rejects.toThrow(
      'forwardTo must be an http or https URL',
    );
    const demo = sandbox.account(DEMO_API_KEY);
    expect(demo).toBeInstanceOf(AccountClient);
    expect((await demo.readiness.report()).checks.length).toBeGreaterThan(10);
  });
});
