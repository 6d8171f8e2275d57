// Scale: does a request cost the same with 10,000 stored accounts as with one? One sandbox
// process on a lowdb DATA_DIR (the embedded default), measured first with the fixtures only,
// then after `--accounts N` accounts were made through POST /sandbox/accounts, each with a few
// requests of traffic. Then restart to healthy on the same folder. Targets (issue 9): each
// operation at N accounts within 0.8x of its 1-account speed; account creation under 5 ms on
// average; RSS under 200 MB with 10,000 stored accounts; restart to healthy under 1 s.
import { mkdtemp, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import autocannon from 'autocannon';

import { startChild } from './lib/child.js';
import { DEMO_API_KEY } from './lib/sandbox.js';

export const title = 'scale: one account against many (lowdb DATA_DIR, sandbox in its own process)';

const DEMO_LOCATION_ID = '2311f461-b957-4b4f-ad46-fe7cd7964881';
/** Accounts that receive the load at N accounts: a hosted sandbox's active ones among all stored. */
const WORKING_SET = 100;
const json = { 'content-type': 'application/json' };
const bearer = (key) => ({ authorization: `Bearer ${key}` });

async function call(url, init = {}) {
  const res = await fetch(url, { redirect: 'manual', ...init });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${text}`);
  return { res, body: text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
}

/** Mean time (ms) of `count` runs of `fn(i)`, one at a time, after `warmUp` runs. */
async function meanMs(count, fn, warmUp = 10) {
  for (let i = 0; i < warmUp; i++) await fn(-1 - i);
  const started = performance.now();
  for (let i = 0; i < count; i++) await fn(i);
  return (performance.now() - started) / count;
}

/** Requests per second of GET requests spread round-robin over `targets` ({path, key}). */
async function throughput(base, targets, seconds = Number(process.env.BENCH_SECONDS ?? 3)) {
  const requests = targets.map((t) => ({ method: 'GET', path: t.path, headers: bearer(t.key) }));
  const options = { url: base, connections: 10, requests, workers: 1 };
  await autocannon({ ...options, duration: 1 });
  const result = await autocannon({ ...options, duration: seconds });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

/** A receiver for confirmations and receiver checks: answers every request 200 with JSON. */
async function startReceiver() {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, json).end('{"ok":true}'));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

/** Signs a user in once; each later GET /login of the signed-in browser gives a fresh code. */
async function codeSource(base, email, password) {
  const redirectUri = 'http://localhost:3000/callback';
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: 'demo-client',
    redirect_uri: redirectUri,
  }).toString();
  const form = await call(`${base}/login?${query}`);
  const cookie = form.res.headers.get('set-cookie').split(';')[0];
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(form.body)[1];
  const body = new URLSearchParams({
    response_type: 'code',
    client_id: 'demo-client',
    redirect_uri: redirectUri,
    csrf_token: csrf,
    email,
    password,
  });
  const signedIn = await fetch(`${base}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  const session = signedIn.headers.get('set-cookie').split(';')[0];
  return async () => {
    const res = await fetch(`${base}/login?${query}`, { redirect: 'manual', headers: { cookie: session } });
    await res.text();
    return { code: new URL(res.headers.get('location')).searchParams.get('code'), redirectUri };
  };
}

/** Measures the five operations against `accounts` ({key, locationId, email, password}). */
async function measureOperations(base, receiver, accounts, label) {
  const pick = (i) => accounts[((i % accounts.length) + accounts.length) % accounts.length];
  const get = await throughput(
    base,
    accounts.map((a) => ({ path: `/v1/locations/${a.locationId}`, key: a.key })),
  );
  const put = await meanMs(200, (i) =>
    call(`${base}/v1/locations/${pick(i).locationId}`, {
      method: 'PUT',
      headers: { ...json, ...bearer(pick(i).key) },
      body: JSON.stringify({ homeAway: i % 2 ? 'home' : 'away' }),
    }),
  );
  let n = 0;
  const subscribe = await meanMs(100, (i) =>
    call(`${base}/v1/locations/${pick(i).locationId}/subscriptions`, {
      method: 'POST',
      headers: { ...json, ...bearer(pick(i).key) },
      body: JSON.stringify({ endpoint: `${receiver.url}/${label}/${n++}` }),
    }),
  );
  const owner = accounts[0];
  const nextCode = await codeSource(base, owner.email, owner.password);
  const codes = [];
  for (let i = 0; i < 60; i++) codes.push(await nextCode());
  const basic = `Basic ${Buffer.from('demo-client:demo-client-secret').toString('base64')}`;
  const exchange = await meanMs(
    50,
    (i) => {
      const { code, redirectUri } = codes[i + 10];
      return call(`${base}/oauth2/token`, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri }),
      });
    },
    0,
  );
  const create = await meanMs(50, () =>
    call(`${base}/sandbox/accounts`, { method: 'POST', headers: json, body: '{"locations": 2}' }),
  );
  return { get, put, subscribe, exchange, create };
}

async function createAccounts(base, count, receiver) {
  const made = [];
  let creatingMs = 0;
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const { body } = await call(`${base}/sandbox/accounts`, {
      method: 'POST',
      headers: json,
      body: '{"locations": 2}',
    });
    creatingMs += performance.now() - started;
    const account = {
      key: body.apiKey,
      locationId: body.locations[0].locationId,
      email: body.user.email,
      password: body.user.password,
    };
    made.push(account);
    // A few requests of traffic, as a CI run makes: list, a change, a summary, and now and then a subscription.
    await call(`${base}/v1/locations`, { headers: bearer(account.key) });
    await call(`${base}/v1/locations/${account.locationId}`, {
      method: 'PUT',
      headers: { ...json, ...bearer(account.key) },
      body: '{"homeAway":"away"}',
    });
    await call(`${base}/v1/locations/${account.locationId}/readings/water-usage/summary`, {
      headers: bearer(account.key),
    });
    if (i % 10 === 0) {
      await call(`${base}/v1/locations/${account.locationId}/subscriptions`, {
        method: 'POST',
        headers: { ...json, ...bearer(account.key) },
        body: JSON.stringify({ endpoint: `${receiver.url}/setup/${i}` }),
      });
    }
    if ((i + 1) % 1000 === 0) process.stdout.write(`  ${i + 1} accounts made\n`);
  }
  return { made, meanCreateMs: creatingMs / count };
}

export async function run({ args }) {
  const count = Number(args.accounts ?? 10_000);
  const dir = await mkdtemp(join(tmpdir(), 'bench-scale-'));
  const receiver = await startReceiver();
  let sandbox = await startChild({ DATA_DIR: dir, ENDPOINT_POLICY: 'https-or-loopback' });
  try {
    const demo = [
      { key: DEMO_API_KEY, locationId: DEMO_LOCATION_ID, email: 'demo@example.com', password: 'demo-password' },
    ];
    // A first pass warms the process up (JIT, caches), so the baseline is not paying for it.
    await measureOperations(sandbox.url, receiver, demo, 'warm-up');
    const one = await measureOperations(sandbox.url, receiver, demo, 'one');
    const oneRss = sandbox.rssMb();
    console.log(
      `1 account: GET ${one.get.rps.toFixed(0)} req/s (p99 ${one.get.p99} ms), PUT ${one.put.toFixed(2)} ms, subscribe ${one.subscribe.toFixed(2)} ms, code exchange ${one.exchange.toFixed(2)} ms, create account ${one.create.toFixed(2)} ms; RSS ${oneRss.toFixed(0)} MB`,
    );

    const { made, meanCreateMs } = await createAccounts(sandbox.url, count, receiver);
    const working = made.slice(-WORKING_SET);
    const many = await measureOperations(sandbox.url, receiver, working, 'many');
    const manyRss = sandbox.rssMb();
    console.log(
      `${count} accounts: GET ${many.get.rps.toFixed(0)} req/s (p99 ${many.get.p99} ms), PUT ${many.put.toFixed(2)} ms, subscribe ${many.subscribe.toFixed(2)} ms, code exchange ${many.exchange.toFixed(2)} ms, create account ${many.create.toFixed(2)} ms; RSS ${manyRss.toFixed(0)} MB`,
    );

    await sandbox.stop();
    sandbox = await startChild({ DATA_DIR: dir });
    const restartMs = sandbox.readyMs;
    const afterRestart = await call(`${sandbox.url}/v1/locations/${working[0].locationId}`, {
      headers: bearer(working[0].key),
    });
    const restartRss = sandbox.rssMb();

    const speed = (a, b) => a / b;
    const rows = [
      [
        'GET a location (req/s, 10 conns)',
        one.get.rps.toFixed(0),
        many.get.rps.toFixed(0),
        speed(many.get.rps, one.get.rps),
        '>= 0.8',
      ],
      [
        'PUT a location (ms, one at a time)',
        one.put.toFixed(2),
        many.put.toFixed(2),
        speed(one.put, many.put),
        '>= 0.8',
      ],
      [
        'create a subscription (ms)',
        one.subscribe.toFixed(2),
        many.subscribe.toFixed(2),
        speed(one.subscribe, many.subscribe),
        '>= 0.8',
      ],
      [
        'exchange an OAuth code (ms)',
        one.exchange.toFixed(2),
        many.exchange.toFixed(2),
        speed(one.exchange, many.exchange),
        '>= 0.8',
      ],
      [
        'create an account (ms)',
        one.create.toFixed(2),
        many.create.toFixed(2),
        speed(one.create, many.create),
        '>= 0.8',
      ],
    ];
    console.log(
      `\n${'operation'.padEnd(36)}  ${'1 account'.padStart(10)}  ${`${count} acc.`.padStart(11)}  speed ratio  target`,
    );
    for (const [name, a, b, ratio, target] of rows)
      console.log(
        `${name.padEnd(36)}  ${a.padStart(10)}  ${b.padStart(11)}  ${ratio.toFixed(2).padStart(11)}  ${target}`,
      );
    console.log(`\naccount creation, mean over all ${count}: ${meanCreateMs.toFixed(2)} ms (target < 5 ms)`);
    console.log(
      `RSS: ${oneRss.toFixed(0)} MB with the fixtures, ${manyRss.toFixed(0)} MB with ${count} accounts stored (target < 200 MB), ${restartRss.toFixed(0)} MB after a restart`,
    );
    console.log(
      `restart to healthy with ${count} accounts: ${restartMs.toFixed(0)} ms (target < 1000 ms); the first request after it answered ${afterRestart.res.status}`,
    );
  } finally {
    await sandbox.stop();
    await receiver.close();
    await rm(dir, { recursive: true, force: true });
  }
}
