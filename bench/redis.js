// Redis: the sandbox on Redis against the sandbox on lowdb, and two replicas against one, in one
// run. Every sandbox is its own process (bench/lib/child.js, the V8 flags of `npm start`); Redis
// is a redis-server started here on a free port with AOF and appendfsync always, as compose.yaml
// runs it (or REDIS_URL). Targets (issue 10): the Redis store adds under 1 ms at p50 to a GET;
// two replicas serve 1.3x or more of one replica's requests per second (on 2 cores the load
// generator and Redis share them); 1,000 confirmed subscriptions of one location all receive one
// alert within 2 s with two replicas. Figures are printed, not asserted.
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import autocannon from 'autocannon';

import { freePort, startRedisProcess } from '../test/helpers/redis-process.mjs';
import { startChild } from './lib/child.js';
import { median, roundRatio, sequential } from './lib/measure.js';
import { startReceivers } from './lib/receivers.js';
import { DEMO_ACCOUNT_ID, DEMO_API_KEY } from './lib/sandbox.js';

export const title = 'redis: replicas on one Redis against one lowdb process (each sandbox in its own process)';

const DEMO_LOCATION_ID = '2311f461-b957-4b4f-ad46-fe7cd7964881';
const SUBSCRIPTIONS = 1000;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** Enough connections to keep two replicas busy on this machine (see the throughput section). */
const SATURATING_CONNECTIONS = 40;
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
    pid: child.pid,
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
    await call(`${base}/v1/locations/${location}/subscriptions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ endpoint: `${receiverUrl}/latency/${randomUUID()}` }),
    });
    if (i >= 0) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(count / 2)], p99: times[Math.floor(count * 0.99)] };
}

/** CPU seconds a process has used so far (Linux /proc), or null where that cannot be read. */
function cpuSeconds(pid) {
  if (pid === undefined || !existsSync(`/proc/${pid}/stat`)) return null;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** One second of GET a location, `connections` spread over `bases`: requests per second, latencies, and the CPU each process used meanwhile (share of one core). */
async function burst(bases, connections, pids = {}, duration = 1) {
  const path = `/v1/locations/${DEMO_LOCATION_ID}`;
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSeconds(pid)]));
  const ownBefore = process.cpuUsage();
  // One load generator for every setup (autocannon spreads its connections over the URLs, as a
  // load balancer would), so that the generator's own CPU is the same whatever is measured. It
  // runs on this process's main thread, which has nothing else to do here (every sandbox is a
  // child process): a worker thread per round would add its start-up to every round.
  const r = await autocannon({ url: bases.map((base) => `${base}${path}`), headers: auth, connections, duration });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${r.non2xx} non-2xx answers, ${r.errors} errors`);
  const own = process.cpuUsage(ownBefore);
  const cpu = { 'load generator': (own.user + own.system) / 1e6 / r.duration };
  for (const [name, pid] of Object.entries(pids)) {
    const now = cpuSeconds(pid);
    if (now !== null && before[name] !== null) cpu[name] = (now - before[name]) / r.duration;
  }
  return { rps: r.requests.total / r.duration, p50: r.latency.p50, p99: r.latency.p99, cpu };
}

/**
 * Throughput of each setup ({name: {bases, pids}}) at `connections`, measured in alternating
 * one-second rounds after a warm-up second each, so that load from elsewhere on the machine hits
 * them alike: mean req/s, median p50, worst p99, mean CPU per process, and each round's req/s.
 */
async function throughputSideBySide(setups, connections) {
  const names = Object.keys(setups);
  for (const name of names) await burst(setups[name].bases, connections);
  const rounds = Object.fromEntries(names.map((name) => [name, []]));
  for (let i = 0; i < SECONDS; i++)
    for (const name of names) rounds[name].push(await burst(setups[name].bases, connections, setups[name].pids));
  return Object.fromEntries(
    names.map((name) => {
      const r = rounds[name];
      const cpu = {};
      for (const key of Object.keys(r[0].cpu)) cpu[key] = r.reduce((n, x) => n + x.cpu[key], 0) / r.length;
      return [
        name,
        {
          rps: r.reduce((n, x) => n + x.rps, 0) / r.length,
          p50: median(r.map((x) => x.p50)),
          p99: Math.max(...r.map((x) => x.p99)),
          cpu,
          rounds: r.map((x) => x.rps),
        },
      ];
    }),
  );
}

const cpuText = (cpu) =>
  Object.entries(cpu)
    .map(([name, share]) => `${name} ${(share * 100).toFixed(0)}%`)
    .join(', ');

/** Time (ms) until every receiver got the alert-start notification, started through `base`. */
async function fanOut(base, receivers) {
  const target = receivers.count + SUBSCRIPTIONS;
  const started = performance.now();
  const alert = await call(`${base}/sandbox/locations/${DEMO_LOCATION_ID}/alerts`, {
    method: 'POST',
    headers: { ...json, ...auth },
    body: '{"type":"highLeak"}',
  });
  await receivers.waitFor(target);
  const ms = performance.now() - started;
  await call(`${base}/sandbox/locations/${DEMO_LOCATION_ID}/alerts/${alert.alertId}/end`, {
    method: 'POST',
    headers: auth,
  });
  await receivers.waitFor(target + SUBSCRIPTIONS);
  return ms;
}

const row = (name, lowdb, redis, note) =>
  console.log(`${name.padEnd(44)}  ${lowdb.padStart(14)}  ${redis.padStart(14)}  ${note}`);
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
    const get = {
      lowdb: await sequential(`${lowdb.url}/v1/locations/${DEMO_LOCATION_ID}`, auth, 500, 200),
      redis: await sequential(`${one.url}/v1/locations/${DEMO_LOCATION_ID}`, auth, 500, 200),
    };
    const read = {
      lowdb: await sequential(`${lowdb.url}${readings}`, auth, 300, 100),
      redis: await sequential(`${one.url}${readings}`, auth, 300, 100),
    };
    const create = {
      lowdb: await subscriptionLatency(lowdb.url, receivers.urls[0]),
      redis: await subscriptionLatency(one.url, receivers.urls[0]),
    };
    console.log(
      `one request at a time (p50 / p99), lowdb DATA_DIR process against one replica on Redis (AOF, appendfsync always):`,
    );
    row('operation', 'lowdb', 'redis', 'Redis adds at p50 (target < 1 ms for a GET)');
    row(
      'GET a location',
      `${ms(get.lowdb.p50)} / ${get.lowdb.p99.toFixed(1)}`,
      `${ms(get.redis.p50)} / ${get.redis.p99.toFixed(1)}`,
      ms(get.redis.p50 - get.lowdb.p50),
    );
    row(
      'readings: a month by day',
      `${ms(read.lowdb.p50)} / ${read.lowdb.p99.toFixed(1)}`,
      `${ms(read.redis.p50)} / ${read.redis.p99.toFixed(1)}`,
      ms(read.redis.p50 - read.lowdb.p50),
    );
    row(
      'create a subscription',
      `${ms(create.lowdb.p50)} / ${create.lowdb.p99.toFixed(1)}`,
      `${ms(create.redis.p50)} / ${create.redis.p99.toFixed(1)}`,
      ms(create.redis.p50 - create.lowdb.p50),
    );

    // 2. Throughput: one lowdb process, one Redis replica, two Redis replicas, side by side, at
    // 10 connections and at a load that keeps two replicas busy (more connections than 10 are
    // needed: each waits on its Redis round trips, so 5 per replica leave the replicas idle part of the time).
    const two = await start(redisEnv);
    const pids = { 'replica 1': one.pid, 'replica 2': two.pid, redis: redis.pid };
    const setups = {
      lowdb: { bases: [lowdb.url], pids: { lowdb: lowdb.pid } },
      one: { bases: [one.url], pids },
      two: { bases: [one.url, two.url], pids },
    };
    const loads = {};
    for (const connections of [10, SATURATING_CONNECTIONS])
      loads[connections] = await throughputSideBySide(setups, connections);
    await lowdb.stop();
    console.log(
      `\nGET a location under load, ${SECONDS} alternating 1 s rounds of each setup after 1 s of warm-up (BENCH_SECONDS to change); CPU: share of one core:`,
    );
    for (const [connections, t] of Object.entries(loads)) {
      const scaling = roundRatio(t.two.rounds, t.one.rounds);
      const saturating = Number(connections) === SATURATING_CONNECTIONS;
      console.log(`  ${connections} connections`);
      console.log(
        `    lowdb, one process       ${t.lowdb.rps.toFixed(0).padStart(6)} req/s  p50 ${t.lowdb.p50} ms  p99 ${t.lowdb.p99} ms  CPU: ${cpuText(t.lowdb.cpu)}`,
      );
      console.log(
        `    Redis, one replica       ${t.one.rps.toFixed(0).padStart(6)} req/s  p50 ${t.one.p50} ms  p99 ${t.one.p99} ms  (${(t.one.rps / t.lowdb.rps).toFixed(2)}x lowdb)  CPU: ${cpuText(t.one.cpu)}`,
      );
      console.log(
        `    Redis, two replicas      ${t.two.rps.toFixed(0).padStart(6)} req/s  p50 ${t.two.p50} ms  p99 ${t.two.p99} ms  (${scaling.median.toFixed(2)}x one replica, rounds ${scaling.low.toFixed(2)}-${scaling.high.toFixed(2)}${saturating ? '; target >= 1.3x' : ''})  CPU: ${cpuText(t.two.cpu)}`,
      );
    }

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
    console.log(
      `\n1 alert to ${SUBSCRIPTIONS} confirmed subscriptions on 4 loopback receivers, all received in: two replicas ${twoCold.toFixed(0)} ms first, ${twoWarm.toFixed(0)} ms next (target < 2000 ms); one replica ${oneWarm.toFixed(0)} ms`,
    );
  } finally {
    for (const child of started) await child.stop();
    await receivers.close();
    await redis.close();
    await rm(dir, { recursive: true, force: true });
  }
}
