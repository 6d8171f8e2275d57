/**
 * `water-sandbox/testcontainers`: the sandbox's image as a Testcontainers module for Node
 * (testcontainers 11 on Node 20, 12 on Node 22.22+: an optional peer dependency).
 *
 *   const sandbox = await new WaterSandboxContainer('ghcr.io/your-org/water-sandbox:0.3.0').withHostReceiver(3000).start();
 *   const account = await sandbox.createAccount();
 *   await account.subscriptions.create(account.locations[0].locationId, await account.receiverEndpoint('/webhooks'));
 *
 * Webhooks reach a receiver the test runs on the host through the sandbox's own relay, driven
 * from the test process as `water-sandbox listen` does: no network path from the container to
 * the host, no helper image, the same on Docker and podman.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:net';
import { performance } from 'node:perf_hooks';

import {
  AbstractStartedContainer,
  GenericContainer,
  getContainerRuntimeClient,
  type BoundPorts,
  type StartedTestContainer,
  type WaitStrategy,
} from 'testcontainers';

import { SandboxAccount, WaterSandbox, type AccountOptions, type RelayForwarder } from '../client/index.js';
import { isLoopbackHost } from '../core/loopback.js';

/** The port the image listens on. */
export const SANDBOX_PORT = 8080;

/** A free TCP port of this machine, for the sandbox's port on the host (its PUBLIC_URL names it). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * What the container's environment gains when it is started for the engine's `host` on
 * `hostPort` (given `environment`, what it was given): a PUBLIC_URL naming that port, unless
 * given; and, when that host is not this machine (a remote engine), the endpoint rules of a
 * sandbox on the public internet turned back to a local one's, unless ENDPOINT_POLICY was given.
 * What is loopback is core/loopback.ts's one rule: `127.example.com` is a remote host.
 */
export function startEnvironment(
  host: string,
  hostPort: number,
  environment: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  if (environment['PUBLIC_URL'] !== undefined) return {};
  const publicUrl = { PUBLIC_URL: `http://${host.includes(':') ? `[${host}]` : host}:${hostPort}` };
  // A PUBLIC_URL that is not loopback makes the sandbox a hosted one, whose endpoint rules are for strangers.
  if (isLoopbackHost(host) || environment['ENDPOINT_POLICY'] !== undefined) return publicUrl;
  return { ...publicUrl, ENDPOINT_POLICY: 'any', BLOCK_PRIVATE_ENDPOINTS: 'false' };
}

type Container = Parameters<WaitStrategy['waitUntilReady']>[0];

/**
 * Ready when GET /healthz answers 200 through the mapped port (what the image's HEALTHCHECK
 * asks inside), checked every 100 ms. Where the engine runs the image's health check and
 * reports it unhealthy, or the container stops, the start fails at once with what it said.
 * (Docker runs the check first one interval after the start; podman without systemd never
 * runs it, so the engine's report cannot be what the start waits for.)
 */
class HealthzWaitStrategy implements WaitStrategy {
  #timeoutMs = 60_000;
  #timeoutSet = false;

  async waitUntilReady(container: Container, boundPorts: BoundPorts): Promise<void> {
    const { host } = (await getContainerRuntimeClient()).info.containerRuntime;
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${boundPorts.getBinding(SANDBOX_PORT)}/healthz`;
    const deadline = performance.now() + this.#timeoutMs;
    let last = 'no answer yet';
    for (;;) {
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
        if (response.status === 200) return;
        last = `${response.status} ${await response.text()}`;
      } catch (error) {
        last = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
      }
      const { State: state } = await container.inspect();
      const health = (state as { Health?: { Status?: string; Log?: { Output?: string }[] } }).Health;
      if (health?.Status === 'unhealthy')
        throw new Error(
          `the sandbox container is unhealthy: ${health.Log?.at(-1)?.Output?.trim() ?? 'its health check failed'}`,
        );
      if (!state.Running)
        throw new Error(
          `the sandbox container stopped (exit code ${state.ExitCode}) before ${url} answered; its logs say why`,
        );
      if (performance.now() > deadline)
        throw new Error(`the sandbox did not answer ${url} with 200 within ${this.#timeoutMs} ms (last: ${last})`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  withStartupTimeout(startupTimeoutMs: number): this {
    this.#timeoutMs = startupTimeoutMs;
    this.#timeoutSet = true;
    return this;
  }

  isStartupTimeoutSet(): boolean {
    return this.#timeoutSet;
  }

  getStartupTimeout(): number {
    return this.#timeoutMs;
  }
}

/**
 * The sandbox's image (`docker build -t water-sandbox .` in its repository) as a container:
 * state in memory, no caps on accounts or relays (a test's own sandbox), ready when /healthz
 * answers. Every setting of the sandbox can be given with `withEnvironment`.
 */
export class WaterSandboxContainer extends GenericContainer {
  #receiver: string | null = null;

  constructor(image = 'water-sandbox') {
    super(image);
    this.withEnvironment({ DATA_DIR: ':memory:', ACCOUNT_CREATION_LIMIT: '0', MAX_OPEN_RELAYS: '0' });
    this.withWaitStrategy(new HealthzWaitStrategy());
  }

  /**
   * A receiver the test runs on this machine (a port of localhost, or a base URL): each
   * account's `receiverEndpoint(path)` is a URL of the sandbox whose webhooks are forwarded to
   * `<receiver><path>`, and the receiver's answer is the delivery's answer.
   */
  withHostReceiver(receiver: number | string): this {
    const base = typeof receiver === 'number' ? `http://localhost:${receiver}` : receiver.replace(/\/+$/, '');
    if (!URL.canParse(base) || !/^https?:$/.test(new URL(base).protocol))
      throw new TypeError(
        `withHostReceiver takes a port or an http(s) URL such as http://localhost:3000; got ${JSON.stringify(receiver)}`,
      );
    this.#receiver = base;
    return this;
  }

  /**
   * Starts it on a free port of the host, with that port in its PUBLIC_URL (unless given), so a
   * subscription's `confirmationUrl` works from the host; resolves once /healthz answers.
   */
  override async start(): Promise<StartedWaterSandboxContainer> {
    const hostPort = await freePort();
    this.withExposedPorts({ container: SANDBOX_PORT, host: hostPort });
    if (this.environment['PUBLIC_URL'] === undefined) {
      const { host } = (await getContainerRuntimeClient()).info.containerRuntime;
      this.withEnvironment(startEnvironment(host, hostPort, this.environment));
    }
    return new StartedWaterSandboxContainer(await super.start(), this.#receiver);
  }
}

/** An account of the container's sandbox (see SandboxAccount), with the host receiver's endpoints. */
export class ContainerAccount extends SandboxAccount {
  constructor(
    account: SandboxAccount,
    private readonly container: StartedWaterSandboxContainer,
  ) {
    super(account.http, account);
  }

  /**
   * The URL to subscribe so that this account's webhooks reach `<host receiver><path>`: a relay
   * endpoint of the sandbox, held open by this process until the container stops.
   */
  receiverEndpoint(path = '/'): Promise<string> {
    return this.container.receiverEndpoint(path, this);
  }
}

/** The started sandbox: its URL, fresh accounts (one per test), and the host receiver's endpoints. */
export class StartedWaterSandboxContainer extends AbstractStartedContainer {
  /** The client of this sandbox (water-sandbox/client). */
  readonly sandbox: WaterSandbox;
  readonly #relays = new Map<string, Promise<RelayForwarder>>();

  constructor(
    started: StartedTestContainer,
    private readonly receiver: string | null,
  ) {
    super(started);
    this.sandbox = new WaterSandbox(this.getUrl());
  }

  /** The sandbox's base URL from this machine: `http://<host>:<mapped port>`. */
  getUrl(): string {
    const host = this.getHost();
    return `http://${host.includes(':') ? `[${host}]` : host}:${this.getMappedPort(SANDBOX_PORT)}`;
  }

  /** A fresh, isolated account of this sandbox: each test takes its own, so tests share nothing but the container. */
  async createAccount(options: AccountOptions = {}): Promise<ContainerAccount> {
    return new ContainerAccount(await this.sandbox.createAccount(options), this);
  }

  /**
   * The URL the account subscribes so its webhooks reach `<host receiver><path>`: the first call
   * for an account and path opens a relay (as `water-sandbox listen --forward-to` does) and
   * waits until it is connected.
   */
  receiverEndpoint(path: string, account: SandboxAccount): Promise<string> {
    if (this.receiver === null)
      return Promise.reject(new Error('no host receiver: give its port with withHostReceiver(port) before start()'));
    const target = `${this.receiver}${path.startsWith('/') ? path : `/${path}`}`;
    const key = `${account.apiKey}\n${target}`;
    let relay = this.#relays.get(key);
    if (!relay) {
      // One relay of the account per path, named after it (relay names are short: a readable part and a hash).
      const readable = target
        .replace(/^https?:\/\/[^/]+/, '')
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '')
        .slice(0, 24);
      const name = `${readable === '' ? 'root' : readable}-${createHash('sha256').update(target).digest('hex').slice(0, 8)}`;
      relay = account.relays.forward(target, { name });
      this.#relays.set(key, relay);
      relay.catch(() => this.#relays.delete(key));
    }
    return relay.then((r) => r.endpoint);
  }

  /** Closes the relays before the container stops, so no delivery waits on them. */
  protected override async containerStopping(): Promise<void> {
    const relays = await Promise.allSettled([...this.#relays.values()]);
    this.#relays.clear();
    await Promise.all(relays.flatMap((r) => (r.status === 'fulfilled' ? [r.value.close()] : [])));
  }
}
