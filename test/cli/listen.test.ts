import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { RelayMemory } from '../../src/cli/relay-memory.js';
import { CliProcess } from '../helpers/cli-process.js';
import { bearer } from '../helpers/demo.js';
import { listenCommand } from '../helpers/listen-command.js';
import { startTestSandbox, stopAllSandboxes } from '../helpers/start-sandbox.js';
import { eventually } from '../helpers/waiting.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * `water-sandbox listen` end to end: a hosted sandbox (its PUBLIC_URL is not loopback: private
 * endpoints refused, confirmation tokens for the endpoint only), the CLI as a child process
 * talking to it on loopback, and a real local receiver that only the CLI can reach.
 */

interface Delivery {
  deliveryId: string;
  kind: string;
  target: string;
  state: string;
  locationId: string | null;
  payload: Record<string, unknown>;
  attempts: { statusCode: number | null; error: string | null; responseExcerpt: string | null }[];
}

const ALERT_FIELDS = [
  'subscriptionId',
  'locationId',
  'deviceId',
  'type',
  'active',
  'startTime',
  'detectedTime',
  'stopTime',
  'peakValue',
  'peakStatus',
];

let sandboxUrl: string;
let receiver: WebhookReceiver;
const clis: CliProcess[] = [];

beforeAll(async () => {
  sandboxUrl = (
    await startTestSandbox({
      PUBLIC_URL: 'https://sandbox.example.com',
      WEBHOOK_BACKOFF_MS: '100',
      WEBHOOK_MAX_ATTEMPTS: '3',
    })
  ).url;
});

beforeEach(async () => {
  receiver = await WebhookReceiver.start();
  receiver.fallback = { status: 202, body: '{"received":"yes"}' };
});

afterEach(async () => {
  for (const cli of clis.splice(0)) cli.kill('SIGKILL');
  await receiver.close();
});

afterAll(stopAllSandboxes);

async function freshAccount(): Promise<{ key: string; locations: string[] }> {
  const response = await fetch(`${sandboxUrl}/sandbox/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"locations": 2}',
  });
  const account = (await response.json()) as { apiKey: string; locations: { locationId: string }[] };
  return { key: account.apiKey, locations: account.locations.map((l) => l.locationId) };
}

/** A JSON answer; a caller names the type of body it expects. */
interface Answer<T = unknown> {
  status: number;
  body: T;
}

async function api(key: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${sandboxUrl}${path}`, {
    method,
    headers: { ...bearer(key), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json() };
}

const deliveries = async (key: string, kind: string): Promise<Delivery[]> =>
  ((await api(key, 'GET', `/sandbox/deliveries?kind=${kind}`)) as Answer<{ deliveries: Delivery[] }>).body.deliveries;

function listen(key: string, ...args: string[]): CliProcess {
  return listenWith({}, key, ...args);
}

/** `listen` with more of the environment (HOME: where it remembers its relays). */
function listenWith(env: Record<string, string>, key: string, ...args: string[]): CliProcess {
  const cli = new CliProcess(
    listenCommand({ forwardTo: receiver.url('/hooks'), sandbox: sandboxUrl, apiKey: key }, ...args),
    { env },
  );
  clis.push(cli);
  return cli;
}

/** Resolves with the first request the receiver got (or gets) that `match` accepts. */
async function received(
  match: (body: Record<string, unknown>, method: string) => boolean,
): Promise<(typeof receiver.received)[number]> {
  return eventually(
    () => receiver.received.find((r) => match((r.body ?? {}) as Record<string, unknown>, r.method)) ?? null,
    10_000,
  );
}

describe('water-sandbox listen --subscribe all', () => {
  it('subscribes and confirms every location through the relay, forwards alerts with the documented payload, records the local answer, retries a 500, and deletes the subscriptions on SIGINT', async () => {
    const { key, locations } = await freshAccount();
    // The hosted-sandbox rule: the local receiver cannot be subscribed directly...
    const direct = (await api(key, 'POST', `/v1/locations/${locations[0]!}/subscriptions`, {
      endpoint: receiver.url('/hooks').replace('http:', 'https:'),
    })) as Answer<{ message: string }>;
    expect(direct.status).toBe(400);
    expect(direct.body.message).toContain('BLOCK_PRIVATE_ENDPOINTS=true');

    // ...but through the relay it gets everything, its confirmations included: the relay endpoint is the sandbox's own.
    const cli = listen(key, '--subscribe', 'all');
    const [, endpoint] = await cli.waitFor(/Ready\. Webhooks sent to (\S+) are forwarded to /, { stream: 'stdout' });
    expect(endpoint).toMatch(/^https:\/\/sandbox\.example\.com\/relay\/default\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}$/);
    await cli.waitFor(/(confirmed subscription [0-9a-f-]{36}[\s\S]*){2}/, { stream: 'stdout' });

    const { body: list } = (await api(key, 'GET', '/v1/subscriptions')) as Answer<{
      subscriptions: { locationId: string; endpoint: string; status: string }[];
    }>;
    expect(list.subscriptions.map((s) => [s.locationId, s.endpoint, s.status]).sort()).toEqual(
      locations.map((l) => [l, endpoint, 'confirmed']).sort(),
    );
    // The receiver saw the confirmation messages and the GET receiver checks, as a directly subscribed endpoint would.
    await received((body) => typeof body['confirmationToken'] === 'string');
    await received((_body, method) => method === 'GET');

    // An alert reaches the receiver with the documented payload and headers, once per confirmed subscription of the location.
    const { body: alert } = (await api(key, 'POST', `/sandbox/locations/${locations[0]!}/alerts`, {
      type: 'highLeak',
    })) as Answer<{ alertId: string }>;
    const notification = await received((body) => body['type'] === 'highLeak');
    expect(Object.keys(notification.body as object).sort()).toEqual([...ALERT_FIELDS].sort());
    expect(notification.body).toMatchObject({ locationId: locations[0], type: 'highLeak', active: true, stopTime: 0 });
    expect(notification.method).toBe('POST');
    expect(notification.headers['content-type']).toBe('application/json');
    expect(notification.headers['x-sandbox-attempt']).toBe('1');
    const deliveryId = notification.headers['x-sandbox-delivery-id'] as string;
    await cli.waitFor(
      new RegExp(
        `POST alert highLeak started at location ${locations[0]!.slice(0, 8)} \\[delivery ${deliveryId.slice(0, 8)}, attempt 1\\] -> 202 \\(\\d+ ms\\)`,
      ),
      { stream: 'stdout' },
    );

    // The delivery log has the receiver's own answer.
    const delivered = await eventually(
      async () =>
        (await deliveries(key, 'alert')).find((d) => d.deliveryId === deliveryId && d.state === 'delivered') ?? null,
    );
    expect(delivered.target).toBe(endpoint);
    expect(delivered.attempts).toEqual([
      expect.objectContaining({ statusCode: 202, error: null, responseExcerpt: '{"received":"yes"}' }),
    ]);

    // A 500 from the receiver is recorded as 500, and the delivery is retried until it succeeds.
    receiver.script = [{ status: 500, body: '{"error":"boom"}' }];
    await api(key, 'POST', `/sandbox/locations/${locations[0]!}/alerts/${alert.alertId}/end`);
    const retried = await eventually(
      async () =>
        (await deliveries(key, 'alert')).find((d) => d.payload['active'] === false && d.state !== 'pending') ?? null,
      10_000,
    );
    expect(retried.state).toBe('delivered');
    expect(retried.attempts.map((a) => [a.statusCode, a.responseExcerpt])).toEqual([
      [500, '{"error":"boom"}'],
      [202, '{"received":"yes"}'],
    ]);
    await cli.waitFor(/alert highLeak ended .* attempt 1\] -> 500[\s\S]*alert highLeak ended .* attempt 2\] -> 202/, {
      stream: 'stdout',
    });

    // Ctrl-C: the subscriptions are deleted, and the CLI exits 0.
    cli.kill('SIGINT');
    expect(await cli.exited).toEqual({ code: 0, signal: null });
    expect(cli.stdout.match(/^deleted subscription /gm)).toHaveLength(2);
    expect(
      ((await api(key, 'GET', '/v1/subscriptions')) as Answer<{ subscriptions: unknown[] }>).body.subscriptions,
    ).toEqual([]);
  });

  it('with no listener connected, deliveries to the relay endpoint fail like an unreachable endpoint and are retried', async () => {
    const { key, locations } = await freshAccount();
    const { body: relay } = (await api(key, 'POST', '/sandbox/relays', {})) as Answer<{ endpoint: string }>;
    // Accepted although BLOCK_PRIVATE_ENDPOINTS=true: it is the sandbox's own URL.
    const subscribed = (await api(key, 'POST', `/v1/locations/${locations[0]!}/subscriptions`, {
      endpoint: relay.endpoint,
    })) as Answer<{ subscriptionId: string }>;
    expect(subscribed.status).toBe(200);
    const confirmation = await eventually(
      async () => (await deliveries(key, 'confirmation')).find((d) => d.attempts.length >= 2) ?? null,
      10_000,
    );
    expect(confirmation.attempts[0]).toEqual(
      expect.objectContaining({ statusCode: null, error: expect.stringContaining('is not connected') }),
    );
    expect(receiver.received).toEqual([]);
  });

  it('a listener started later holds the relay it opened before (remembered on this machine), and receives the retries of deliveries that failed meanwhile', async () => {
    const { key, locations } = await freshAccount();
    const home = await mkdtemp(join(tmpdir(), 'listen-home-'));
    try {
      const first = listenWith({ HOME: home }, key);
      const [, endpoint = ''] = await first.waitFor(/Ready\. Webhooks sent to (\S+) are forwarded/, {
        stream: 'stdout',
      });
      first.kill('SIGINT');
      await first.exited;
      // The relay key is kept for the user alone.
      const file = join(home, '.local', 'state', 'water-sandbox', 'relays.json');
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect(await readFile(file, 'utf8')).not.toContain(key);

      await api(key, 'POST', `/v1/locations/${locations[0]!}/subscriptions`, { endpoint });
      await eventually(
        async () => (await deliveries(key, 'confirmation')).find((d) => d.attempts.length >= 1) ?? null,
        10_000,
      );
      const second = listenWith({ HOME: home }, key);
      await second.waitFor(new RegExp(`Ready\\. Webhooks sent to ${endpoint.replace(/[.]/g, '\\.')} are forwarded`), {
        stream: 'stdout',
      });
      await received((body) => typeof body['confirmationToken'] === 'string');
      await second.waitFor(/POST subscription confirmation \[delivery \w{8}, attempt [23]\] -> 202/, {
        stream: 'stdout',
      });
      // Without the remembered relay (another machine), another endpoint: nobody else holds this one.
      const elsewhere = listen(key);
      const [, other] = await elsewhere.waitFor(/Ready\. Webhooks sent to (\S+) are forwarded/, { stream: 'stdout' });
      expect(other).not.toBe(endpoint);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('a remembered relay the sandbox refuses (made up, or of another sandbox) is forgotten, and a new one opened', async () => {
    const { key } = await freshAccount();
    const home = await mkdtemp(join(tmpdir(), 'listen-home-'));
    try {
      const memory = RelayMemory.of({ HOME: home });
      const madeUp = {
        relayId: 'default.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA',
        name: 'default',
        endpoint: 'https://sandbox.example.com/relay/default.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA',
        relayKey: 'A'.repeat(32),
      };
      await memory.remember(sandboxUrl, key, 'default', madeUp);
      const cli = listenWith({ HOME: home }, key);
      const [, endpoint] = await cli.waitFor(/Ready\. Webhooks sent to (\S+) are forwarded/, { stream: 'stdout' });
      expect(endpoint).not.toBe(madeUp.endpoint);
      expect((await memory.recall(sandboxUrl, key, 'default'))?.endpoint).toBe(endpoint);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
