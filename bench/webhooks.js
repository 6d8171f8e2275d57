// Webhook benchmark: fan-out latency of one alert to 1,000 confirmed subscriptions, and memory
// before and after 100,000 deliveries. Runs against the built code in dist/ (npm run build) and
// real HTTP receivers on loopback. Prints figures; asserts nothing.
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { startReceivers } from './lib/receivers.js';

const SUBSCRIPTIONS = 1000;
const RECEIVERS = 4;
const TOTAL_DELIVERIES = 100_000;
const LOCATION_ID = '2311f461-b957-4b4f-ad46-fe7cd7964881';
const ACCOUNT_ID = '4a2f2cc5-2fd9-48f2-99bb-222913290605';

/** A garbage collector without --expose-gc, so heap figures are comparable. */
function collector() {
  if (typeof globalThis.gc === 'function') return globalThis.gc;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc');
}

async function buildSandbox() {
  const { startSandbox } = await import('./lib/sandbox.js');
  const service = await import('../dist/alerts/service.js');
  const sandbox = await startSandbox({ now: new Date() });
  return { ...sandbox, service, config: sandbox.deps.config };
}

const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export async function run() {
  const gc = collector();
  const receivers = await startReceivers(RECEIVERS);
  const { deps, store, service, config, close } = await buildSandbox();
  const logSize = async () => (await store.deliveries.list(ACCOUNT_ID, { offset: 0, limit: 1 })).total;
  try {
    await store.accounts.update(ACCOUNT_ID, (d) => {
      for (let i = 0; i < SUBSCRIPTIONS; i++) {
        d.subscriptions.push({
          subscriptionId: deps.ids.uuid(),
          accountId: ACCOUNT_ID,
          locationId: LOCATION_ID,
          endpoint: `${receivers.urls[i % RECEIVERS]}/hooks/${i}`,
          status: 'confirmed',
          createdAt: new Date().toISOString(),
        });
      }
    });

    // 1. Fan-out: one alert, 1,000 receivers; the first from a cold process, then once warm.
    const fanOut = async () => {
      const target = receivers.count + SUBSCRIPTIONS;
      const started = performance.now();
      const { alert } = await service.startAlert(deps, ACCOUNT_ID, LOCATION_ID, { type: 'highLeak' });
      await receivers.waitFor(target);
      const ms = performance.now() - started;
      await deps.dispatcher.idle();
      await service.endAlert(deps, ACCOUNT_ID, LOCATION_ID, alert.alertId);
      await receivers.waitFor(target + SUBSCRIPTIONS);
      await deps.dispatcher.idle();
      return ms;
    };
    const coldMs = await fanOut();
    const warmMs = await fanOut();
    const notDelivered = (await store.deliveries.list(ACCOUNT_ID, { state: 'pending', offset: 0, limit: 1 })).total + (await store.deliveries.list(ACCOUNT_ID, { state: 'failed', offset: 0, limit: 1 })).total;
    console.log(
      `webhooks: 1 alert to ${SUBSCRIPTIONS} confirmed subscriptions on ${RECEIVERS} loopback receivers: all received in ` +
        `${coldMs.toFixed(0)} ms cold, ${warmMs.toFixed(0)} ms warm (target < 2000 ms; concurrency ${config.webhook.concurrency}; not delivered: ${notDelivered})`,
    );

    // 2. Memory: keep alerting until 100,000 deliveries have been made.
    gc();
    const before = { heap: process.memoryUsage().heapUsed, rss: process.memoryUsage().rss, log: await logSize(), sent: receivers.count };
    const loopStart = performance.now();
    let sent = receivers.count;
    let type = 'ambientTemp';
    while (sent < TOTAL_DELIVERIES) {
      const { alert: a } = await service.startAlert(deps, ACCOUNT_ID, LOCATION_ID, { type });
      await service.endAlert(deps, ACCOUNT_ID, LOCATION_ID, a.alertId);
      sent += 2 * SUBSCRIPTIONS;
      await receivers.waitFor(sent);
      await deps.dispatcher.idle();
      type = type === 'ambientTemp' ? 'humidity' : 'ambientTemp';
    }
    const loopSeconds = (performance.now() - loopStart) / 1000;
    gc();
    const after = { heap: process.memoryUsage().heapUsed, rss: process.memoryUsage().rss, log: await logSize() };
    console.log(
      `webhooks: ${receivers.count} deliveries in total (${((receivers.count - before.sent) / loopSeconds).toFixed(0)}/s in the memory loop); ` +
        `heap after GC ${mb(before.heap)} -> ${mb(after.heap)}, RSS ${mb(before.rss)} -> ${mb(after.rss)}; ` +
        `delivery log ${before.log} -> ${after.log} records (limit ${config.webhook.logLimit} finished per account) (target: flat)`,
    );
  } finally {
    await deps.dispatcher.idle();
    await receivers.close();
    await close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  run().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
