import type { DestinationStream } from 'pino';

import { HOSTED_LIMITS, loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/core/logger.js';
import { describeStartup, startSandbox, type RunningSandbox } from '../../src/server.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';
import { loopbackOnlySenderFor, testResolve } from '../helpers/loopback-only-sender.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

// A sandbox started with nothing but its public address is locked down, and says so.

const running: RunningSandbox[] = [];
let receiver: WebhookReceiver;

beforeEach(async () => {
  receiver = await WebhookReceiver.start();
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
  await receiver.close();
});

async function start(
  env: Record<string, string>,
): Promise<{ sandbox: RunningSandbox; logs: Record<string, unknown>[] }> {
  const lines: string[] = [];
  const destination: DestinationStream = { write: (line: string) => void lines.push(line) };
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: ':memory:', ...env });
  const resolve = testResolve();
  const sandbox = await startSandbox(config, {
    logger: createLogger('info', destination),
    sender: loopbackOnlySenderFor(config, resolve),
    resolve,
  });
  running.push(sandbox);
  return { sandbox, logs: lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

const subscribe = (sandbox: RunningSandbox, endpoint: string): Promise<Response> =>
  fetch(`${sandbox.url}/v1/locations/${DEMO_LOCATION_ID}/subscriptions`, {
    method: 'POST',
    headers: { ...bearer(DEMO_API_KEY), 'content-type': 'application/json' },
    body: JSON.stringify({ endpoint }),
  });

describe('a hosted start (PUBLIC_URL names a host that is not loopback)', () => {
  it('is locked down without any other setting, and the start-up message and log say which rules are in force and why', async () => {
    const { sandbox, logs } = await start({ PUBLIC_URL: 'https://sandbox.example.com' });
    const message = describeStartup(sandbox.report);
    expect(message).toContain(
      '  security    hosted: PUBLIC_URL sandbox.example.com is not loopback, so the protections are on (a setting you give wins)',
    );
    expect(message).toMatch(
      /BLOCK_PRIVATE_ENDPOINTS=true +webhooks reach public addresses only, checked at every connection \(hosted default\)/,
    );
    expect(message).toMatch(/ENDPOINT_POLICY=https-only +subscription endpoints must be https \(hosted default\)/);
    const listening = logs.find((l) => l['msg'] === 'listening')!;
    expect(listening['protections']).toEqual({
      hosted: true,
      blockPrivateEndpoints: true,
      endpointPolicy: 'https-only',
      adminToken: false,
      ...HOSTED_LIMITS,
    });
    // The loopback receiver that a local sandbox reaches is refused, over http and over https.
    expect((await subscribe(sandbox, receiver.url())).status).toBe(400);
    expect((await subscribe(sandbox, receiver.url().replace('http:', 'https:'))).status).toBe(400);
    expect(receiver.received).toEqual([]);
  });

  it('an explicit setting wins, and the message says it was set', async () => {
    const { sandbox } = await start({
      PUBLIC_URL: 'https://sandbox.example.com',
      ENDPOINT_POLICY: 'https-or-loopback',
      BLOCK_PRIVATE_ENDPOINTS: 'false',
    });
    expect(describeStartup(sandbox.report)).toMatch(
      /BLOCK_PRIVATE_ENDPOINTS=false +webhooks may reach this machine and its network \(set\)/,
    );
    expect((await subscribe(sandbox, receiver.url())).status).toBe(200);
    await receiver.waitFor(1);
  });

  it('a local start says it is local in one line, and reaches the loopback receiver as before', async () => {
    const { sandbox } = await start({});
    expect(describeStartup(sandbox.report)).toContain('  security    local (PUBLIC_URL localhost:');
    expect((await subscribe(sandbox, receiver.url())).status).toBe(200);
    await receiver.waitFor(1);
  });
});
