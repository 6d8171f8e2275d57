import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { WaterSandboxContainer } from 'water-sandbox/testcontainers';
test('a leak alert reaches our webhook receiver, and the integration is ready', async () => {
  const received: { type?: string; confirmationToken?: string }[] = [];
  const receiver: Server = createServer((req, res) => req.on('data', (body: Buffer) => received.push(JSON.parse(String(body)))).on('end', () => res.setHeader('content-type', 'application/json').end('{}'))).listen(0);
  await once(receiver, 'listening');
  const sandbox = await new WaterSandboxContainer(process.env.WATER_SANDBOX_IMAGE ?? 'ghcr.io/your-org/water-sandbox:0.3.0').withHostReceiver((receiver.address() as { port: number }).port).start();
  const account = await sandbox.createAccount();
  const location = account.locations[0]!.locationId;
  const { subscriptionId } = await account.subscriptions.create(location, await account.receiverEndpoint('/webhooks'));
  await account.deliveries.waitFor((d) => d.kind === 'confirmation' && d.state === 'delivered');
  await account.subscriptions.confirm(subscriptionId, received.find((body) => body.confirmationToken)!.confirmationToken!);
  await account.alerts.start(location, 'highLeak');
  await account.deliveries.waitFor((d) => d.kind === 'alert' && d.state === 'delivered');
  expect(received.at(-1)).toMatchObject({ subscriptionId, locationId: location, type: 'highLeak', active: true });
  await account.readiness.assertReady({ except: ['oauth.token-exchange', 'oauth.refresh', 'readings.pagination', 'errors.rate-limit', 'errors.server-errors', 'webhooks.duplicate', 'webhooks.out-of-order'] });
  await sandbox.stop(), receiver.close();
});
