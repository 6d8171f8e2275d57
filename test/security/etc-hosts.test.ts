import { readFileSync } from 'node:fs';

import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/core/logger.js';
import { startSandbox, type RunningSandbox } from '../../src/server.js';
import { judgeAddress } from '../../src/webhooks/address-policy.js';
import { deliveriesIn } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

// The machine's own names, resolved as the running server resolves them (the system resolver:
// /etc/hosts first, so no DNS query leaves the machine). Every name /etc/hosts gives an address
// that is not public is refused, at subscription and at connection.

/** Names of /etc/hosts whose address is not public, with that address. */
function privateNamesOfEtcHosts(): { name: string; address: string }[] {
  const names = new Map<string, string>();
  for (const line of readFileSync('/etc/hosts', 'utf8').split('\n')) {
    const [address, ...aliases] = line.replace(/#.*/, '').trim().split(/\s+/);
    if (!address || aliases.length === 0 || judgeAddress(address) === null) continue;
    for (const name of aliases) if (!names.has(name)) names.set(name, address);
  }
  return [...names].map(([name, address]) => ({ name, address }));
}

const NAMES = privateNamesOfEtcHosts();
const sandboxes: RunningSandbox[] = [];
let receiver: WebhookReceiver;

async function sandbox(env: Record<string, string>): Promise<RunningSandbox> {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATA_DIR: ':memory:',
    ENDPOINT_POLICY: 'any',
    ...env,
  });
  const running = await startSandbox(config, { logger: silentLogger });
  sandboxes.push(running);
  return running;
}

const endpointOn = (name: string, path = '/hook'): string => {
  const url = new URL(receiver.url(path));
  url.hostname = name;
  return url.toString();
};

function subscribe(s: RunningSandbox, endpoint: string): Promise<Response> {
  return fetch(`${s.url}/v1/locations/${DEMO_LOCATION_ID}/subscriptions`, {
    method: 'POST',
    headers: { ...bearer(DEMO_API_KEY), 'content-type': 'application/json' },
    body: JSON.stringify({ endpoint }),
  });
}

beforeEach(async () => {
  receiver = await WebhookReceiver.start();
});

afterEach(async () => {
  await Promise.all(sandboxes.splice(0).map((s) => s.stop()));
  await receiver.close();
});

describe("the machine's own names (/etc/hosts) on a sandbox with BLOCK_PRIVATE_ENDPOINTS=true", () => {
  it('/etc/hosts has names to try', () => {
    expect(NAMES.map((n) => n.name)).toContain('localhost');
  });

  it.each(NAMES)('$name ($address) is refused at subscription', async ({ name, address }) => {
    const s = await sandbox({ BLOCK_PRIVATE_ENDPOINTS: 'true' });
    const res = await subscribe(s, endpointOn(name));
    expect(res.status).toBe(400);
    const { message } = (await res.json()) as { message: string };
    expect(message).toMatch(
      new RegExp(
        `^endpoint must be a public address on this hosted sandbox \\(BLOCK_PRIVATE_ENDPOINTS=true\\): ${name.replace(/\./g, '\\.')} (resolves to ${address.replace(/\./g, '\\.')}|is a loopback name)`,
      ),
    );
    expect(receiver.received).toEqual([]);
  });

  it('each is refused at connection, and nothing reaches the receiver listening there', async () => {
    const s = await sandbox({ BLOCK_PRIVATE_ENDPOINTS: 'true' });
    await s.deps.store.accounts.update(s.deps.fixtures.accounts[0]!.accountId, (doc) => {
      for (const [i, { name }] of NAMES.entries()) {
        doc.subscriptions.push({
          subscriptionId: `sub-${i}`,
          accountId: doc.account.accountId,
          locationId: DEMO_LOCATION_ID,
          endpoint: endpointOn(name),
          status: 'confirmed',
          createdAt: new Date(0).toISOString(),
        });
      }
    });
    const alert = await fetch(`${s.url}/sandbox/locations/${DEMO_LOCATION_ID}/alerts`, {
      method: 'POST',
      headers: { ...bearer(DEMO_API_KEY), 'content-type': 'application/json' },
      body: '{"type":"highLeak"}',
    });
    expect(alert.status).toBe(201);
    await s.deps.dispatcher.drain();
    const deliveries = await deliveriesIn(s.deps);
    expect(deliveries).toHaveLength(NAMES.length);
    for (const delivery of deliveries) {
      expect(delivery).toMatchObject({
        state: 'failed',
        attempts: [
          {
            statusCode: null,
            responseExcerpt: null,
            error: expect.stringMatching(/^blocked: .* \(BLOCK_PRIVATE_ENDPOINTS\)$/),
          },
        ],
      });
    }
    expect(receiver.received).toEqual([]);
  });

  it('with BLOCK_PRIVATE_ENDPOINTS=false the same names reach the receiver, as on a laptop today', async () => {
    const s = await sandbox({ BLOCK_PRIVATE_ENDPOINTS: 'false' });
    const name = NAMES.find((n) => n.address === '127.0.0.1' && n.name !== 'localhost')?.name ?? 'localhost';
    const res = await subscribe(s, endpointOn(name));
    expect(res.status).toBe(200);
    await receiver.waitFor(1);
    expect(receiver.received[0]).toMatchObject({ method: 'POST', path: '/hook' });
  });
});
