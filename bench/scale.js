// Scale: does a request cost the same with 10,000 (or 100,000) stored accounts as with one?
// Two sandbox processes started as `npm start` starts them, on the same store kind: one with
// the fixtures only (the 1-account baseline), one with `--accounts N` accounts made through
// POST /sandbox/accounts, each with a location and a change. Each operation (GET and PUT a
// location, a page of readings, create a subscription, exchange an OAuth code) is measured on
// both in alternating rounds, so the machine's neighbours hit both alike, each on one account
// made through the API (on the many-account sandbox, its newest): the same work, with one account
// stored or N. (Spread over 100 accounts, the many-account side would fold each account's
// readiness evidence a hundred times less often than the baseline: not the same work.) Then the
// many-account process restarts on its store, to healthy.
//
// Targets (issue 42): each operation at N accounts at least 0.9x its 1-account speed (median
// over the rounds, by wall time and by CPU of the server's main thread); heap and RSS bounded
// by the cache settings, not by the accounts (the index, read into memory at start-up, is the
// one part that grows with them: measured apart, in bytes per account); start-up with the
// accounts stored under 2 s to healthy; creation under 2 ms an account. `--store redis` runs the
// same on two redis-servers of its own. Figures are printed, not asserted.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import autocannon from 'autocannon';

import { freePort, startRedisProcess } from '../test/helpers/redis-process.mjs';
import { startChild } from './lib/child.js';
import { median } from './lib/measure.js';

export const title = 'scale: one account against many (two sandbox processes, measured in alternating rounds)';

const TARGET_RATIO = 0.9;
/** A settled range (its pages are kept: src/readings/page-memo.ts), the same bytes in every run. */
export const READINGS_QUERY =
  'readings/water-usage?startTime=2026-01-01T00:00:00.000Z&endTime=2026-01-08T00:00:00.000Z&groupBy=hour&perPage=24&page=2';
const json = { 'content-type': 'application/json' };
const bearer = (key) => ({ authorization: `Bearer ${key}` });

/** CPU time (ms) the process's main thread has used, from Linux's schedstat (nanoseconds); null elsewhere. */
function mainThreadCpuMs(pid) {
  const path = `/proc/${pid}/schedstat`;
  if (!existsSync(path)) return null;
  return Number(readFileSync(path, 'utf8').split(' ')[0]) / 1e6;
}

/** One request on a kept-alive connection; its body (JSON parsed when it is JSON). Throws on a 4xx or 5xx. */
function call(agent, base, path, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => {
        if (res.statusCode >= 400) reject(new Error(`${method} ${path}: ${res.statusCode} ${text}`));
        else
          resolve({
            status: res.statusCode,
            headers: res.headers,
            body: text && res.headers['content-type']?.includes('json') ? JSON.parse(text) : text,
          });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A receiver for confirmations: answers every request 200 with JSON. */
async function startReceiver() {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, json).end('{"ok":true}'));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

/** A redis-server of our own (AOF, appendfsync always, as compose.yaml runs it). */
async function startRedis() {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'bench-scale-redis-'));
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

/** A store for one sandbox: a fresh DATA_DIR, or a fresh redis-server. */
async function startStore(kind) {
  if (kind === 'redis') {
    const redis = await startRedis();
    return { env: { REDIS_URL: redis.url }, dataDir: null, close: redis.close };
  }
  const dir = await mkdtemp(join(tmpdir(), 'bench-scale-'));
  return { env: { DATA_DIR: dir }, dataDir: dir, close: () => rm(dir, { recursive: true, force: true }) };
}

/** The heap V8 holds (MB), the least of a few samples of /metrics a moment apart (garbage not yet collected shows as more). */
async function heapMb(base) {
  let least = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 5; i++) {
    const text = await fetch(`${base}/metrics`).then((r) => r.text());
    const used = Number(/^nodejs_heap_size_used_bytes (\S+)$/m.exec(text)?.[1]);
    if (Number.isFinite(used)) least = Math.min(least, used / 2 ** 20);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return least;
}

/** Signs the user in once; each later GET /login of that browser gives a fresh authorization code. */
async function codeSource(agent, base, email, password) {
  const redirectUri = 'http://localhost:3000/callback';
  const query = new URLSearchParams({ response_type: 'code', client_id: 'demo-client', redirect_uri: redirectUri });
  const form = await call(agent, base, `/login?${query}`);
  const cookie = form.headers['set-cookie'][0].split(';')[0];
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(form.body)[1];
  const signedIn = await call(agent, base, '/login', {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...Object.fromEntries(query), csrf_token: csrf, email, password }).toString(),
  });
  const session = signedIn.headers['set-cookie'][0].split(';')[0];
  return async () => {
    const res = await call(agent, base, `/login?${query}`, { headers: { cookie: session } });
    return { code: new URL(res.headers.location).searchParams.get('code'), redirectUri };
  };
}

/**
 * Makes `count` accounts, each with a location and a change of it (homeAway), one at a time;
 * the time and main-thread CPU of the creations alone, and the heap half way and at the end.
 */
async function createAccounts(sandbox, count) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const made = [];
  let wallMs = 0;
  let cpuMs = 0;
  let heapHalfway = null;
  for (let i = 0; i < count; i++) {
    const cpuBefore = mainThreadCpuMs(sandbox.pid);
    const started = performance.now();
    const { body } = await call(agent, sandbox.url, '/sandbox/accounts', {
      method: 'POST',
      headers: json,
      body: '{"locations": 1}',
    });
    wallMs += performance.now() - started;
    cpuMs += mainThreadCpuMs(sandbox.pid) - cpuBefore;
    const account = {
      key: body.apiKey,
      locationId: body.locations[0].locationId,
      email: body.user.email,
      password: body.user.password,
    };
    await call(agent, sandbox.url, `/v1/locations/${account.locationId}`, {
      method: 'PUT',
      headers: { ...json, ...bearer(account.key) },
      body: '{"homeAway":"away"}',
    });
    made.push(account);
    if (i + 1 === Math.floor(count / 2) && count > 1) heapHalfway = await heapMb(sandbox.url);
    if ((i + 1) % 10_000 === 0) process.stdout.write(`  ${i + 1} accounts made\n`);
  }
  agent.destroy();
  return { made, wallMs: wallMs / count, cpuMs: cpuMs / count, heapHalfway };
}

/**
 * The operations of one sandbox on `accounts` (round-robin), each returning what one round
 * measured: `units` done, and the wall time they took (ms); the caller reads the CPU around it.
 */
function operations(sandbox, accounts, receiver, label) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const pick = (i) => accounts[i % accounts.length];
  let n = 0;
  const one = (count, fn) => async () => {
    const started = performance.now();
    for (let i = 0; i < count; i++) await fn(n++);
    return { units: count, ms: performance.now() - started };
  };
  const load = (path) => async () => {
    const requests = accounts.map((a) => ({ method: 'GET', path: path(a), headers: bearer(a.key) }));
    const result = await autocannon({ url: sandbox.url, connections: 10, requests, duration: 1, workers: 1 });
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`${label}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
    return { units: result.requests.total, ms: result.duration * 1000 };
  };
  const owner = accounts[0];
  let nextCode = null;
  let codes = [];
  return {
    agent,
    'GET a location': load((a) => `/v1/locations/${a.locationId}`),
    'a page of readings': load((a) => `/v1/locations/${a.locationId}/${READINGS_QUERY}`),
    'PUT a location': one(100, (i) =>
      call(agent, sandbox.url, `/v1/locations/${pick(i).locationId}`, {
        method: 'PUT',
        headers: { ...json, ...bearer(pick(i).key) },
        body: JSON.stringify({ homeAway: i % 2 ? 'home' : 'away' }),
      }),
    ),
    'create a subscription': one(30, (i) =>
      call(agent, sandbox.url, `/v1/locations/${pick(i).locationId}/subscriptions`, {
        method: 'POST',
        headers: { ...json, ...bearer(pick(i).key) },
        body: JSON.stringify({ endpoint: `${receiver.url}/${label}/${i}` }),
      }),
    ),
    'exchange an OAuth code': {
      /** Codes for the round, made before it (a sign-in page per code is not what is measured). */
      async prepare() {
        nextCode ??= await codeSource(agent, sandbox.url, owner.email, owner.password);
        codes = [];
        for (let i = 0; i < 30; i++) codes.push(await nextCode());
      },
      run: one(30, (i) => {
        const { code, redirectUri } = codes[i % 30];
        return call(agent, sandbox.url, '/oauth2/token', {
          method: 'POST',
          headers: {
            authorization: `Basic ${Buffer.from('demo-client:demo-client-secret').toString('base64')}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri }).toString(),
        });
      }),
    },
  };
}

const OPERATIONS = [
  'GET a location',
  'a page of readings',
  'PUT a location',
  'create a subscription',
  'exchange an OAuth code',
];

/** One round of one operation on one sandbox: wall time and main-thread CPU a unit (ms). */
async function measureOnce(sandbox, op) {
  const step = typeof op === 'function' ? { run: op } : op;
  await step.prepare?.();
  const cpuBefore = mainThreadCpuMs(sandbox.pid);
  const { units, ms } = await step.run();
  const cpu = mainThreadCpuMs(sandbox.pid) - cpuBefore;
  return { wall: ms / units, cpu: cpu / units };
}

/** Alternating rounds of every operation on both sandboxes; per operation, the rounds of each. */
async function alternate(one, many, rounds) {
  const results = Object.fromEntries(OPERATIONS.map((name) => [name, { one: [], many: [] }]));
  // A first round not counted: the JIT, the caches and the page memo warm up on both.
  for (const name of OPERATIONS) {
    await measureOnce(one.sandbox, one.ops[name]);
    await measureOnce(many.sandbox, many.ops[name]);
  }
  for (let round = 0; round < rounds; round++) {
    for (const name of OPERATIONS) {
      const order = round % 2 === 0 ? [one, many] : [many, one];
      for (const side of order) results[name][side.label].push(await measureOnce(side.sandbox, side.ops[name]));
    }
  }
  return results;
}

/** Median and range over rounds of the 1-account cost over the N-account cost (a speed ratio: 1 is flat). */
function speedRatio(oneRounds, manyRounds, key) {
  const ratios = oneRounds.map((r, i) => r[key] / manyRounds[i][key]);
  return { median: median(ratios), low: Math.min(...ratios), high: Math.max(...ratios) };
}

/**
 * The index's share of the heap with the accounts of `dataDir`: a process of its own opens the
 * index as the store does at start-up, collecting garbage before and after (--expose-gc).
 */
async function indexHeap(dataDir) {
  const script = `
    const { AccountIndex } = await import(${JSON.stringify(new URL('../dist/store/embedded/account-index.js', import.meta.url).href)});
    globalThis.gc(); const before = process.memoryUsage().heapUsed;
    const index = await AccountIndex.open(${JSON.stringify(dataDir)}, false);
    globalThis.gc(); const after = process.memoryUsage().heapUsed;
    console.log(JSON.stringify({ bytes: after - before, accounts: index.count }));`;
  const child = spawn(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  await once(child, 'exit');
  return JSON.parse(out);
}

const fmt = (r) => `${r.median.toFixed(2)} (${r.low.toFixed(2)}-${r.high.toFixed(2)})`;
const met = (ok) => (ok ? 'met' : 'NOT met');

export async function run({ args }) {
  const count = Number(args.accounts ?? 10_000);
  const kind = args.store ?? 'lowdb';
  if (kind !== 'lowdb' && kind !== 'redis') throw new Error(`--store: lowdb or redis, not ${kind}`);
  const rounds = Number(process.env.BENCH_ROUNDS ?? (args.quick ? 3 : 5));
  const benchStarted = performance.now();
  const receiver = await startReceiver();
  const stores = [await startStore(kind), await startStore(kind)];
  const env = { ENDPOINT_POLICY: 'https-or-loopback' };
  const one = { label: 'one', sandbox: await startChild({ ...env, ...stores[0].env }) };
  let many = { label: 'many', sandbox: await startChild({ ...env, ...stores[1].env }) };
  const agents = [];
  try {
    console.log(
      `store: ${kind}; ${count} accounts made through the API, each with a location and a change; ${rounds} alternating rounds per operation (BENCH_ROUNDS to change); Node ${process.version}`,
    );
    const rssOne = one.sandbox.rssMb();
    const heapOne = await heapMb(one.sandbox.url);
    const created = await createAccounts(many.sandbox, count);
    const heapMany = await heapMb(many.sandbox.url);
    const rssMany = many.sandbox.rssMb();
    // The baseline's account is made as the others are (a fixture account is larger, and so slower to change).
    const alone = (await createAccounts(one.sandbox, 1)).made;
    one.ops = operations(one.sandbox, alone, receiver, 'one');
    many.ops = operations(many.sandbox, created.made.slice(-1), receiver, 'many');
    agents.push(one.ops.agent, many.ops.agent);
    const results = await alternate(one, many, rounds);
    const rssAfterLoad = many.sandbox.rssMb();

    await many.sandbox.stop();
    many = { ...many, sandbox: await startChild({ ...env, ...stores[1].env }) };
    const restartMs = many.sandbox.readyMs;
    const last = created.made.at(-1);
    const answered = await call(undefined, many.sandbox.url, `/v1/locations/${last.locationId}`, {
      headers: bearer(last.key),
    });
    const rssRestart = many.sandbox.rssMb();
    const heapRestart = await heapMb(many.sandbox.url);
    const index = stores[1].dataDir === null ? null : await indexHeap(stores[1].dataDir);

    console.log(
      `\n${'operation'.padEnd(24)} ${'1 account'.padStart(12)} ${`${count} acc.`.padStart(12)}  ${'speed by time'.padEnd(18)} ${'speed by CPU'.padEnd(18)} target >= ${TARGET_RATIO}`,
    );
    for (const name of OPERATIONS) {
      const r = results[name];
      const byTime = speedRatio(r.one, r.many, 'wall');
      const byCpu = speedRatio(r.one, r.many, 'cpu');
      const cost = (rounds) => `${median(rounds.map((x) => x.cpu * 1000)).toFixed(0)} µs CPU`;
      console.log(
        `${name.padEnd(24)} ${cost(r.one).padStart(12)} ${cost(r.many).padStart(12)}  ${fmt(byTime).padEnd(18)} ${fmt(byCpu).padEnd(18)} ${met(byTime.median >= TARGET_RATIO || byCpu.median >= TARGET_RATIO)}`,
      );
    }
    console.log(
      `account creation, mean over all ${count}: ${created.wallMs.toFixed(2)} ms (main-thread CPU ${created.cpuMs.toFixed(2)} ms); target < 2 ms: ${met(created.wallMs < 2)}`,
    );
    console.log(
      `restart to healthy with ${count} accounts stored: ${restartMs.toFixed(0)} ms (target < 2000 ms: ${met(restartMs < 2000)}); the first request after it answered ${answered.status}`,
    );
    console.log(
      `heap used (least of 5 samples): ${heapOne.toFixed(1)} MB with the fixtures, ${created.heapHalfway?.toFixed(1)} MB at ${Math.floor(count / 2)} accounts, ${heapMany.toFixed(1)} MB at ${count}, ${heapRestart.toFixed(1)} MB after the restart`,
    );
    console.log(
      `RSS: ${rssOne.toFixed(0)} MB with the fixtures, ${rssMany.toFixed(0)} MB with ${count} accounts made, ${rssAfterLoad.toFixed(0)} MB after the rounds, ${rssRestart.toFixed(0)} MB after the restart`,
    );
    if (index)
      console.log(
        `the index alone (opened in a process of its own, garbage collected): ${(index.bytes / 2 ** 20).toFixed(1)} MB for ${index.accounts} accounts, ${(index.bytes / index.accounts).toFixed(0)} bytes an account, so ${(((index.bytes / index.accounts) * 100_000) / 2 ** 20).toFixed(0)} MB at 100,000`,
      );
    console.log(`the scale bench took ${((performance.now() - benchStarted) / 1000).toFixed(0)} s`);
  } finally {
    for (const agent of agents) agent.destroy();
    await one.sandbox.stop();
    await many.sandbox.stop();
    await receiver.close();
    for (const store of stores) await store.close();
  }
}
