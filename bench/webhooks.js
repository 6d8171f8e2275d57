// Webhook benchmark: fan-out latency of one alert to 1,000 confirmed subscriptions, with and
// without the connect-time address check (BLOCK_PRIVATE_ENDPOINTS) in the same run, what the check
// costs, and memory before and after 100,000 deliveries. Runs against the built code in dist/
// (npm run build) and real HTTP receivers on loopback. Prints figures; asserts nothing.
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { median } from './lib/measure.js';
import { startReceivers } from './lib/receivers.js';

const SUBSCRIPTIONS = 1000;
const FAN_OUT_ROUNDS = 5;
const LOOKUPS = 20_000;
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

async function buildSandbox(overrides = {}) {
  const { startSandbox } = await import('./lib/sandbox.js');
  const service = await import('../dist/alerts/service.js');
  const sandbox = await startSandbox({ now: new Date(), overrides });
  return { ...sandbox, service, config: sandbox.deps.config };
}

/**
 * The connect-time check as a hosted sandbox runs it, on loopback receivers: their names resolve
 * to 127.0.0.1 (an injected resolver), which stands in for a public address here. Each new
 * connection resolves its name once and judges every address before it connects.
 */
async function checkedSetup(receivers) {
  const { AddressGuard, createWebhookSender } = await import('../dist/webhooks/index.js');
  const names = new Map(receivers.urls.map((url, i) => [`receiver-${i}.bench`, new URL(url).port]));
  const resolve = async (hostname) => (names.has(hostname) ? [{ address: '127.0.0.1', family: 4 }] : []);
  const guard = new AddressGuard({ resolve, treatAsPublic: (address) => address === '127.0.0.1' });
  const urls = [...names].map(([name, port]) => `http://${name}:${port}`);
  return { guard, resolve, urls, sender: createWebhookSender({ guard }) };
}

/** p50 of `fn` over `n` calls, in microseconds. */
async function p50Micros(n, fn) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await fn();
    times.push((performance.now() - started) * 1000);
  }
  return times.sort((a, b) => a - b)[Math.floor(n / 2)];
}

const lookupOnce = (lookup, hostname) =>
  new Promise((resolve, reject) =>
    lookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export async function run() {
  const gc = collector();
  const receivers = await startReceivers(RECEIVERS);
  const checked = await checkedSetup(receivers);
  const plain = await buildSandbox();
  const guarded = await buildSandbox({ sender: checked.sender, resolve: checked.resolve });
  const { deps, store, service, config, close } = plain;
  const logSize = async () => (await store.deliveries.list(ACCOUNT_ID, { offset: 0, limit: 1 })).total;
  try {
    const subscribe = (sandbox, urls) =>
      sandbox.store.accounts.update(ACCOUNT_ID, (d) => {
        for (let i = 0; i < SUBSCRIPTIONS; i++) {
          d.subscriptions.push({
            subscriptionId: sandbox.deps.ids.uuid(),
            accountId: ACCOUNT_ID,
            locationId: LOCATION_ID,
            endpoint: `${urls[i % RECEIVERS]}/hooks/${i}`,
            status: 'confirmed',
            createdAt: new Date().toISOString(),
          });
        }
      });
    await subscribe(plain, receivers.urls);
    await subscribe(guarded, checked.urls);

    // 1. Fan-out: one alert, 1,000 receivers, on a sandbox without the check and one with it, in
    // alternating rounds; the first round of each from a cold process.
    const fanOut = async (sandbox) => {
      const target = receivers.count + SUBSCRIPTIONS;
      const started = performance.now();
      const { alert } = await service.startAlert(sandbox.deps, ACCOUNT_ID, LOCATION_ID, { type: 'highLeak' });
      await receivers.waitFor(target);
      const ms = performance.now() - started;
      await sandbox.deps.dispatcher.idle();
      await service.endAlert(sandbox.deps, ACCOUNT_ID, LOCATION_ID, alert.alertId);
      await receivers.waitFor(target + SUBSCRIPTIONS);
      await sandbox.deps.dispatcher.idle();
      return ms;
    };
    const rounds = { plain: [], guarded: [] };
    for (let round = 0; round < FAN_OUT_ROUNDS; round++) {
      rounds.plain.push(await fanOut(plain));
      rounds.guarded.push(await fanOut(guarded));
    }
    const attemptP50 = async (sandbox) =>
      median(
        (await sandbox.store.deliveries.list(ACCOUNT_ID, { offset: 0, limit: 1000 })).items.flatMap((d) =>
          d.attempts.map((a) => a.latencyMs),
        ),
      );
    const notDelivered = async (sandbox) =>
      (await sandbox.store.deliveries.list(ACCOUNT_ID, { state: 'pending', offset: 0, limit: 1 })).total +
      (await sandbox.store.deliveries.list(ACCOUNT_ID, { state: 'failed', offset: 0, limit: 1 })).total;
    const describe = (times) =>
      `${times[0].toFixed(0)} ms cold, ${median(times.slice(1)).toFixed(0)} ms warm (median of ${times.length - 1}; ${times
        .slice(1)
        .map((t) => t.toFixed(0))
        .join(', ')})`;
    console.log(
      `webhooks: 1 alert to ${SUBSCRIPTIONS} confirmed subscriptions on ${RECEIVERS} loopback receivers (target < 2000 ms; concurrency ${config.webhook.concurrency}), all received in\n` +
        `  without the connect-time check: ${describe(rounds.plain)}; attempt latency p50 ${await attemptP50(plain)} ms; not delivered: ${await notDelivered(plain)}\n` +
        `  with the connect-time check:    ${describe(rounds.guarded)}; attempt latency p50 ${await attemptP50(guarded)} ms; not delivered: ${await notDelivered(guarded)}`,
    );
    // What the check itself costs a new connection: its lookup (resolve, judge every address) against the bare resolution.
    const { lookupThrough } = await import('../dist/webhooks/address-policy.js');
    const bare = lookupThrough(checked.resolve);
    const bareP50 = await p50Micros(LOOKUPS, () => lookupOnce(bare, 'receiver-0.bench'));
    const checkedP50 = await p50Micros(LOOKUPS, () => lookupOnce(checked.guard.lookup, 'receiver-0.bench'));
    const { judgeAddress } = await import('../dist/webhooks/index.js');
    const judgeP50 = await p50Micros(LOOKUPS, () => judgeAddress('93.184.215.14'));
    console.log(
      `webhooks: the connect-time check, p50 over ${LOOKUPS} calls: a name's lookup ${checkedP50.toFixed(1)} µs with the check, ${bareP50.toFixed(1)} µs without; ` +
        `judging one address ${judgeP50.toFixed(1)} µs (target < 1 ms a delivery; it runs once per new connection, and connections are kept alive per origin)`,
    );

    // 2. Memory: keep alerting until 100,000 deliveries have been made.
    gc();
    const before = {
      heap: process.memoryUsage().heapUsed,
      rss: process.memoryUsage().rss,
      log: await logSize(),
      sent: receivers.count,
    };
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
    await guarded.deps.dispatcher.idle();
    await receivers.close();
    await close();
    await guarded.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  run().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
