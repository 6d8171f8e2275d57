import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';

import { ReadinessError, type ReadinessCheck } from '../../src/client/index.js';
import { WaterSandboxContainer, type StartedWaterSandboxContainer } from '../../src/testcontainers/index.js';

/**
 * water-sandbox/testcontainers against a real container engine (see jest.containers.config.js):
 * one container for the file, an account per test, a receiver on the host that the container has
 * no network path to (the relay brings the webhooks), then stop.
 */

const run = promisify(execFile);
const IMAGE = process.env['WATER_SANDBOX_IMAGE']!;
const version = (
  JSON.parse(await (await import('node:fs/promises')).readFile('package.json', 'utf8')) as { version: string }
).version;

interface Received {
  method: string;
  path: string;
  body: Record<string, unknown> | null;
}

/** The partner's webhook receiver: records each request, answers 200 with JSON. */
class Receiver {
  readonly received: Received[] = [];
  readonly server: Server;
  #waiters: (() => void)[] = [];

  constructor() {
    this.server = createServer(
      (req, res) =>
        void this.#handle(req).then(() =>
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}'),
        ),
    );
  }

  async #handle(req: IncomingMessage): Promise<void> {
    let text = '';
    for await (const chunk of req) text += String(chunk);
    this.received.push({
      method: req.method ?? '',
      path: req.url ?? '',
      body: text === '' ? null : (JSON.parse(text) as Record<string, unknown>),
    });
    for (const wake of this.#waiters.splice(0)) wake();
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The first request on `path` that matches, as soon as it arrives. */
  async next(path: string, matches: (body: Record<string, unknown>) => boolean): Promise<Received> {
    for (;;) {
      const found = this.received.find((r) => r.path === path && r.body !== null && matches(r.body));
      if (found) return found;
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }
}

let receiver: Receiver;
let sandbox: StartedWaterSandboxContainer;

beforeAll(async () => {
  receiver = new Receiver();
  receiver.server.listen(0);
  await once(receiver.server, 'listening');
  sandbox = await new WaterSandboxContainer(IMAGE)
    .withHostReceiver(receiver.port)
    .withEnvironment({ WEBHOOK_BACKOFF_MS: '200' })
    .start();
});

afterAll(async () => {
  // Unset when beforeAll failed.
  await (sandbox as typeof sandbox | undefined)?.stop();
  receiver.server.close();
});

describe('WaterSandboxContainer', () => {
  it('starts the image and is ready: /healthz from the host through the mapped port, the version in its labels', async () => {
    expect(sandbox.getUrl()).toBe(`http://${sandbox.getHost()}:${sandbox.getMappedPort(8080)}`);
    expect(await sandbox.sandbox.health()).toEqual({ status: 'ok', version, store: 'memory' });
    const cli = process.env['CONTAINER_CLI']!;
    const { stdout } = await run(cli, ['image', 'inspect', IMAGE, '--format', '{{json .Config.Labels}}']);
    expect(JSON.parse(stdout)).toMatchObject({
      'org.opencontainers.image.version': version,
      'org.opencontainers.image.title': 'water-sandbox',
    });
    const { stdout: health } = await run(cli, ['image', 'inspect', IMAGE, '--format', '{{json .Config.Healthcheck}}']);
    expect(JSON.parse(health)).toMatchObject({ Test: ['CMD', 'node', 'dist/water-sandbox-healthcheck.js'] });
  });

  it('brings webhooks to a receiver on the host, with a confirmationUrl that works from the host', async () => {
    const account = await sandbox.createAccount();
    const location = account.locations[0]!.locationId;
    const endpoint = await account.receiverEndpoint('/hooks/confirm-test');
    expect(endpoint).toMatch(new RegExp(`^http://[^/]+:${sandbox.getMappedPort(8080)}/relay/`));
    const subscription = await account.subscriptions.create(location, endpoint);
    const confirmation = await receiver.next('/hooks/confirm-test', (b) => b['confirmationToken'] !== undefined);
    const confirmationUrl = String(confirmation.body!['confirmationUrl']);
    expect(new URL(confirmationUrl).port).toBe(String(sandbox.getMappedPort(8080)));
    const confirmed = await fetch(confirmationUrl, { headers: { authorization: `Bearer ${account.apiKey}` } });
    expect(await confirmed.json()).toMatchObject({ subscriptionId: subscription.subscriptionId, status: 'confirmed' });

    const alert = await account.alerts.start(location, 'highLeak', { peakValue: 6 });
    const notification = await receiver.next('/hooks/confirm-test', (b) => b['type'] === 'highLeak');
    expect(notification.body).toMatchObject({
      subscriptionId: subscription.subscriptionId,
      locationId: location,
      active: true,
      peakValue: 6,
    });
    const delivered = await account.deliveries.waitFor((d) => d.state === 'delivered', { filter: { kind: 'alert' } });
    expect(delivered.attempts.at(-1)).toMatchObject({ statusCode: 200, responseExcerpt: '{"received":true}' });
    await account.alerts.end(location, alert.alertId);
    await receiver.next('/hooks/confirm-test', (b) => b['type'] === 'highLeak' && b['active'] === false);
  });

  it('gives each test its own account on the one container: two at once, each receiving only its own', async () => {
    const [a, b] = await Promise.all([sandbox.createAccount(), sandbox.createAccount()]);
    const [endpointA, endpointB] = await Promise.all([
      a.receiverEndpoint('/tenant-a'),
      b.receiverEndpoint('/tenant-b'),
    ]);
    expect(endpointA).not.toBe(endpointB);
    for (const [account, endpoint] of [
      [a, endpointA],
      [b, endpointB],
    ] as const) {
      const subscription = await account.subscriptions.create(account.locations[0]!.locationId, endpoint);
      const confirmation = await account.deliveries.waitFor(
        (d) => d.subscriptionId === subscription.subscriptionId && d.state === 'delivered',
        { filter: { kind: 'confirmation' } },
      );
      await account.subscriptions.confirm(
        subscription.subscriptionId,
        String((confirmation.payload as Record<string, unknown>)['confirmationToken']),
      );
    }
    await Promise.all([
      a.alerts.start(a.locations[0]!.locationId, 'lowLeak'),
      b.alerts.start(b.locations[0]!.locationId, 'awayLeak'),
    ]);
    const [forA, forB] = await Promise.all([
      receiver.next('/tenant-a', (x) => x['active'] === true),
      receiver.next('/tenant-b', (x) => x['active'] === true),
    ]);
    expect([forA.body!['type'], forB.body!['type']]).toEqual(['lowLeak', 'awayLeak']);
    expect(
      receiver.received.filter((r) => r.path === '/tenant-a' && r.body?.['locationId'] === b.locations[0]!.locationId),
    ).toEqual([]);
  });

  it('plays a scenario, and asserts readiness: failed checks throw with their fix, the integration passes once it handles the drills', async () => {
    const account = await sandbox.createAccount();
    const location = account.locations[0]!.locationId;
    const subscription = await account.subscriptions.create(
      location,
      await account.receiverEndpoint('/hooks/readiness'),
    );
    const message = await receiver.next(
      '/hooks/readiness',
      (b) => b['confirmationToken'] !== undefined && String(b['confirmationUrl']).includes(subscription.subscriptionId),
    );
    await account.subscriptions.confirm(subscription.subscriptionId, String(message.body!['confirmationToken']));

    const run = await account.scenarios.play('away-leak', location);
    expect(run).toMatchObject({ state: 'completed' });
    await receiver.next('/hooks/readiness', (b) => b['type'] === 'awayLeak' && b['active'] === false);

    const notExercised: ReadinessCheck['id'][] = [
      'oauth.token-exchange',
      'oauth.refresh',
      'readings.pagination',
      'errors.rate-limit',
      'errors.server-errors',
    ];
    const early = await account.readiness.assertReady({ except: notExercised }).catch((e: unknown) => e);
    expect(early).toBeInstanceOf(ReadinessError);
    expect((early as ReadinessError).checks.map((c) => c.id).sort()).toEqual([
      'webhooks.duplicate',
      'webhooks.out-of-order',
    ]);
    expect((early as Error).message).toMatch(/WAIT {2}webhooks\.duplicate: .*\n {8}to show it: /);

    await account.drills.run('duplicate-delivery');
    await account.drills.run('out-of-order');
    const report = await account.readiness.assertReady({ except: notExercised, waitSeconds: 30 });
    expect(report.checks.filter((c) => c.id.startsWith('webhooks.') && c.required).map((c) => c.status)).toEqual([
      'passed',
      'passed',
      'passed',
      'passed',
      'passed',
    ]);
  });

  it('checks the receiver it is given, and opens endpoints for any account of its sandbox', async () => {
    const bare = new WaterSandboxContainer(IMAGE);
    expect(() => bare.withHostReceiver('ftp://x')).toThrow('withHostReceiver takes a port or an http(s) URL');
    const account = await sandbox.sandbox.createAccount();
    await expect(sandbox.receiverEndpoint('/x', account)).resolves.toMatch(/\/relay\/x-[0-9a-f]{8}\./);
  });
});
