// Redis: the sandbox on Redis against the sandbox on lowdb, and two replicas against one, in one
// run. Every sandbox is its own process (bench/lib/child.js, the V8 flags of `npm start`); Redis
// is a redis-server started here on a free port with AOF and appendfsync always, as compose.yaml
// runs it (or REDIS_URL). Targets (issue 10): the Redis store adds under 1 ms at p50 to a GET;
// two replicas serve 1.3x or more of one replica's requests per second (on 2 cores the load
// generator and Redis share them); 1,000 confirmed subscriptions of one location all receive one
// alert within 2 s with two replicas. Figures are printed, not asserted.
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import autocannon from 'autocannon';

import { freePort, startRedisProcess } from '../test/helpers/redis-process.mjs';
import { startChild } from './lib/child.js';
import { sequential } from './lib/measure.js';
import { startReceivers } from './lib/receivers.js';
import { DEMO_ACCOUNT_ID, DEMO_API_KEY } from './lib/sandbox.js';

export const title = 'redis: replicas on one Redis against one lowdb process (each sandbox in its own process)';

const DEMO_LOCATION_ID = '2311f461-b957-4b4f-ad46-fe7cd7964881';
const SUBSCRIPTIONS = 1000;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const auth = { authorization: `Bearer ${DEMO_API_KEY}` };
const json = { 'content-type': 'application/json' };

/** REDIS_URL, or a redis-server of our own in a temporary folder. */
async function startRedis() {
  if (process.env.REDIS_URL) return { url: process.env.REDIS_URL, close: async () => {} };
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'bench-redis-'));
  const child = await startRedisProcess({ port, dir, appendfsync: 'always' });
  return {
    url: `redis://127.0.0.1:${port}`,
    close: async () => {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function call(url, init = {}) {
  const res = await fetch(url, init);
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** p50 and p99 (ms) of creating `count` subscriptions one at a time, in a fresh account of the sandbox. */
async function subscriptionLatency(base, receiverUrl, count = 200) {
  const account = await call(`${base}/sandbox/accounts`, { method: 'POST', headers: json, body: '{"locations": 1}' });
  const headers = { ...json, authorization: `Bearer ${account.apiKey}` };
  const location = account.locations[0].locationId;
  const times = [];
  for (let i = -20; i < count; i++) {
    const started = performance.now();
    await call(`${base}/v1/locations/${location}/subscriptions`, { method: 'POST', headers, body: JSON.stringify({ endpoint: `${receiverUrl}/latency/${randomUUID()}` }) });
    if (i >= 0) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(count / 2)], p99: times[Math.floor(count * 0.99)] };
}

/** One second of GET a location with 10 connections spread over `bases`: requests per second and latencies. */
async function burst(bases, duration = 1) {
  const path = `/v1/locations/${DEMO_LOCATION_ID}`;
  // One load generator for every setup (autocannon spreads its connections over the URLs, as a
  // load balancer would), so that the generator's own CPU is the same whatever is measured.
  const r = await autocannon({ url: bases.map((base) => `${base}${path}`), headers: auth, connections: 10, duration, workers: 1 });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${r.non2xx} non-2xx answers, ${r.errors} errors`);
  return { rps: r.requests.total / r.duration, p50: r.latency.p50, p99: r.latency.p99 };
}

/**
 * Throughput of each setup ({name: bases}), measured in alternating one-second rounds after a
 * warm-up second each, so that load from elsewhere on the machine hits them alike: mean req/s,
 * median p50, worst p99.
 */
async function throughputSideBySide(setups) {
  const names = Object.keys(setups);
  for (const name of names) await burst(setups[name]);
  const rounds = Object.fromEntries(names.map((name) => [name, []]));
  for (let i = 0; i < SECONDS; i++) for (const name of names) rounds[name].push(await burst(setups[name]));
  return Object.fromEntries(
    names.map((name) => {
      const r = rounds[name];
      return [name, { rps: r.reduce((n, x) => n + x.rps, 0) / r.length, p50: r.map((x) => x.p50).sort((a, b) => a - b)[Math.floor(r.length / 2)], p99: Math.max(...r.map((x) => x.p99)) }];
    }),
  );
}

/** Time (ms) until every receiver got the alert-start notification, started through `base`. */
async function fanOut(base, receivers) {
  const target = receivers.count + SUBSCRIPTIONS;
  const started = performance.now();
  const alert = await call(`${base}/sandbox/locations/${DEMO_LOCATION_ID}/alerts`, { method: 'POST', headers: { ...json, ...auth }, body: '{"type":"highLeak"}' });
  await receivers.waitFor(target);
  const ms = performance.now() - started;
  await call(`${base}/sandbox/locations/${DEMO_LOCATION_ID}/alerts/${alert.alertId}/end`, { method: 'POST', headers: auth });
  await receivers.waitFor(target + SUBSCRIPTIONS);
  return ms;
}

const row = (name, lowdb, redis, note) => console.log(`${name.padEnd(44)}  ${lowdb.padStart(14)}  ${redis.padStart(14)}  ${note}`);
const ms = (x) => `${x.toFixed(2)} ms`;

export async function run() {
  const redis = await startRedis();
  const receivers = await startReceivers(4);
  const dir = await mkdtemp(join(tmpdir(), 'bench-redis-lowdb-'));
  const prefix = `bench-${randomUUID().slice(0, 8)}:`;
  const redisEnv = { REDIS_URL: redis.url, REDIS_PREFIX: prefix };
  const started = [];
  const start = async (env) => {
    const child = await startChild({ ENDPOINT_POLICY: 'https-or-loopback', ...env });
    started.push(child);
    return child;
  };
  try {
    const lowdb = await start({ DATA_DIR: dir });
    const one = await start(redisEnv);
    const readings = `/v1/locations/${DEMO_LOCATION_ID}/readings/water-usage?startTime=2026-01-01T00:00:00Z&endTime=2026-02-01T00:00:00Z&groupBy=day&perPage=31`;

    // 1. One request at a time: what the Redis store adds to each request.
    const get = { lowdb: await sequential(`${lowdb.url}/v1/locations/${DEMO_LOCATION_ID}`, auth, 500, 200), redis: await sequential(`${one.url}/v1/locations/${DEMO_LOCATION_ID}`, auth, 500, 200) };
    const read = { lowdb: await sequential(`${lowdb.url}${readings}`, auth, 300, 100), redis: await sequential(`${one.url}${readings}`, auth, 300, 100) };
    const create = { lowdb: await subscriptionLatency(lowdb.url, receivers.urls[0]), redis: await subscriptionLatency(one.url, receivers.urls[0]) };
    console.log(`one request at a time (p50 / p99), lowdb DATA_DIR process against one replica on Redis (AOF, appendfsync always):`);
    row('operation', 'lowdb', 'redis', 'Redis adds at p50 (target < 1 ms for a GET)');
    row('GET a location', `${ms(get.lowdb.p50)} / ${get.lowdb.p99.toFixed(1)}`, `${ms(get.redis.p50)} / ${get.redis.p99.toFixed(1)}`, ms(get.redis.p50 - get.lowdb.p50));
    row('readings: a month by day', `${ms(read.lowdb.p50)} / ${read.lowdb.p99.toFixed(1)}`, `${ms(read.redis.p50)} / ${read.redis.p99.toFixed(1)}`, ms(read.redis.p50 - read.lowdb.p50));
    row('create a subscription', `${ms(create.lowdb.p50)} / ${create.lowdb.p99.toFixed(1)}`, `${ms(create.redis.p50)} / ${create.redis.p99.toFixed(1)}`, ms(create.redis.p50 - create.lowdb.p50));

    // 2. Throughput: one lowdb process, one Redis replica, two Redis replicas (10 connections in all), side by side.
    const two = await start(redisEnv);
    const t = await throughputSideBySide({ lowdb: [lowdb.url], one: [one.url], two: [one.url, two.url] });
    await lowdb.stop();
    console.log(`\nGET a location under load, 10 connections in all, ${SECONDS} alternating 1 s rounds of each after 1 s of warm-up (BENCH_SECONDS to change):`);
    console.log(`  lowdb, one process          ${t.lowdb.rps.toFixed(0).padStart(6)} req/s  p50 ${t.lowdb.p50} ms  p99 ${t.lowdb.p99} ms`);
    console.log(`  Redis, one replica          ${t.one.rps.toFixed(0).padStart(6)} req/s  p50 ${t.one.p50} ms  p99 ${t.one.p99} ms  (${(t.one.rps / t.lowdb.rps).toFixed(2)}x lowdb)`);
    console.log(`  Redis, two replicas         ${t.two.rps.toFixed(0).padStart(6)} req/s  p50 ${t.two.p50} ms  p99 ${t.two.p99} ms  (${(t.two.rps / t.one.rps).toFixed(2)}x one replica; target >= 1.3x)`);

    // 3. Fan-out: 1,000 confirmed subscriptions of one location, one alert, through one replica.
    const { RedisStore } = await import('../dist/store/redis/redis-store.js');
    const store = new RedisStore({ url: redis.url, prefix, deliveryLogLimit: 10_000, sessionTtlMs: 60_000 });
    while (!(await store.health()).ok) await new Promise((resolve) => setTimeout(resolve, 20));
    await store.accounts.update(DEMO_ACCOUNT_ID, (doc) => {
      for (let i = 0; i < SUBSCRIPTIONS; i++) {
        doc.subscriptions.push({
          subscriptionId: randomUUID(),
          accountId: DEMO_ACCOUNT_ID,
          locationId: DEMO_LOCATION_ID,
          endpoint: `${receivers.urls[i % receivers.urls.length]}/fan-out/${i}`,
          status: 'confirmed',
          createdAt: new Date().toISOString(),
        });
      }
    });
    await store.close();
    const twoCold = await fanOut(one.url, receivers);
    const twoWarm = await fanOut(one.url, receivers);
    await two.stop();
    const oneWarm = await fanOut(one.url, receivers);
    console.log(`\n1 alert to ${SUBSCRIPTIONS} confirmed subscriptions on 4 loopback receivers, all received in: two replicas ${twoCold.toFixed(0)} ms first, ${twoWarm.toFixed(0)} ms next (target < 2000 ms); one replica ${oneWarm.toFixed(0)} ms`);
  } finally {
    for (const child of started) await child.stop();
    await receivers.close();
    await redis.close();
    await rm(dir, { recursive: true, force: true });
  }
}
