// A hostile tenant: one free account runs every abuse of issues 29 and 40 against a hosted sandbox
// (PUBLIC_URL=https://sandbox.example.com, hosted defaults, no other setting but METRICS_OPEN for
// the bench's own view of the process; a child process with the V8 flags of `npm start`, on a
// loopback port), while a careful partner runs
// examples/readiness/careful.mjs on an account of its own, through `water-sandbox listen` as a
// partner on a laptop does. Printed: the careful partner's failed requests (target 0), whether
// every required readiness check passed, its p99 latency (target under 100 ms), whether the
// process is still up, its peak heap against --max-old-space-size (the headroom), and the CPU
// it used and its event loop's delay (what tells its own queue from the machine's). Besides its
// runs the careful partner holds two dashboard sessions (the shared demo user and its own user,
// signed in before the abuse) and a dashboard event stream for the whole run, through the sign-in
// flood and the stream grab: whether they lasted is printed.
//
//   npm run bench -- --only hostile                           60 s
//   npm run bench -- --only hostile --abuses faults           one abuse alone, to see which one hurts
//   npm run bench -- --only hostile --without unread-relays   every abuse but one
//   npm run bench -- --only hostile --max-sessions 500        MAX_SESSIONS set lower, so the sign-in flood reaches it in the run
//
// A hosted sandbox works on at most 4 requests of one client at once (MAX_CONCURRENT_REQUESTS):
// the abuses of the account share those turns, so its relay calls, each waiting seconds for a
// listener that never reads, slow its other abuses down. Without them (--without unread-relays)
// every other abuse runs at the account's whole share: the harder case for the careful partner.
//
// test/security/hostile-tenant.test.ts runs the same code briefly (BRIEF) in `npm test`.
// Every request goes to the sandbox on 127.0.0.1: the hostile tenant's endpoints are its own
// relay endpoints and address literals the sandbox refuses, never a name it would resolve.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { Agent, createServer, get } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

import { START_FLAGS, startChild } from './lib/child.js';

export const title = 'hostile tenant: one account abuses a hosted sandbox for 60 s while a careful partner integrates';

const CAREFUL = fileURLToPath(new URL('../examples/readiness/careful.mjs', import.meta.url));
const RECORDER = fileURLToPath(new URL('./lib/fetch-recorder.mjs', import.meta.url));
const BUILT = fileURLToPath(new URL('../dist/water-sandbox.js', import.meta.url));

export const HOSTED_ENV = { PUBLIC_URL: 'https://sandbox.example.com' };
/** /metrics is off on a hosted sandbox without ADMIN_TOKEN: opened for the bench, which reads the process's heap from it. */
const BENCH_ENV = { ...HOSTED_ENV, METRICS_OPEN: 'true' };
/** The careful partner's own network (its dashboard sessions and stream; its runs come from 127.0.0.1). */
const CAREFUL_ADDRESS = '198.51.100.7';
const TARGET_P99_MS = 100;
/** The hostile tenant's network: every request of it comes from an address of this /64 (X-Forwarded-For, as a proxy in front sets it). */
const HOSTILE_NET = '2001:db8:bad:1';
/** The /48 it holds (a site's block): the sign-in flood takes a fresh /64 of it for each sign-in. */
const HOSTILE_SITE = '2001:db8:bad';

/** How hard each abuse pushes: the 60 s bench, and the few seconds of `npm test`. */
export const FULL = {
  workers: 3,
  relayPosters: 8,
  slowSockets: 100,
  stalledStreams: 8,
  bigBody: 90_000,
  oversizedBytes: 2_000_000,
  subscriptionRelays: 40,
  signInFlooders: 6,
  grabAccounts: 36,
};
export const BRIEF = {
  workers: 1,
  relayPosters: 2,
  slowSockets: 10,
  stalledStreams: 6,
  bigBody: 90_000,
  oversizedBytes: 300_000,
  subscriptionRelays: 6,
  signInFlooders: 1,
  grabAccounts: 2,
};

export const ABUSES = [
  'accounts',
  'faults',
  'oauth-clients',
  'subscriptions',
  'redeliveries',
  'scenario-runs',
  'unread-relays',
  'pages',
  'sign-ins',
  'sign-in-flood',
  'stream-grab',
  'oversized-bodies',
  'slow-headers',
];

const randomHex = () => Math.floor(Math.random() * 0x10000).toString(16);
const hostileAddress = () => `${HOSTILE_NET}:${randomHex()}:${randomHex()}:${randomHex()}:${randomHex()}`;
/** An address of a fresh /64 of the hostile /48: a fresh client for every per-address limit. */
const hostileSiteAddress = () => `${HOSTILE_SITE}:${randomHex()}:${randomHex()}::${randomHex()}`;
const percentile = (sorted, p) =>
  sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
const unescapeHtml = (text) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/**
 * Runs the hostile tenant and the careful partner; resolves with the figures. `durationMs`: the
 * least time the abuse lasts (the careful partner's runs go on back to back until then, at least
 * one); `scale`: FULL or BRIEF; `abuses`: which of ABUSES to run; `entry`: how to start the
 * sandbox and the CLI (`nodeArgs` and `main`; the built dist/ by default).
 */
export async function hostileTenant({
  durationMs,
  scale = FULL,
  abuses = ABUSES,
  entry = { nodeArgs: [], main: BUILT },
  log = () => {},
  env = {},
}) {
  // A fresh embedded store of its own (DATA_DIR), as a new deployment starts with.
  const dataDir = await mkdtemp(join(tmpdir(), 'hostile-tenant-'));
  const sandbox = await startChild(
    { ...BENCH_ENV, ...env, DATA_DIR: dataDir, LOG_LEVEL: 'silent', NODE_OPTIONS: '' },
    entry.nodeArgs,
    entry.main,
  );
  const base = sandbox.url;
  const heapLimitMb = Number(/--max-old-space-size=(\d+)/.exec(START_FLAGS.join(' '))?.[1] ?? NaN);
  const memory = watchMemory(base, sandbox);
  let stopping = false;
  let peak = { heapMb: null, rssMb: null, loopDelayMs: null, cpuShare: null };
  try {
    const stats = {};
    // Held by the careful partner from before the abuse to its end: what the flood and the grab must not take.
    const held = await carefulHoldings(base);
    const hostile = await hostileAccount(base);
    log(`sandbox at ${base} (PUBLIC_URL ${HOSTED_ENV.PUBLIC_URL}); hostile account ${hostile.accountId}`);
    const started = performance.now();
    const abuse = Promise.all(
      abuses.map((name) => {
        const own = (stats[name] = newStats());
        // An abuse that cannot go on (its set-up refused, the process gone) says why and stops; the others go on.
        return ABUSE[name]({ base, hostile, scale, stats: own, stopped: () => stopping }).catch((error) => {
          own.errors++;
          own.lastError = `stopped: ${String(error?.cause?.code ?? error?.message ?? error).slice(0, 80)}`;
        });
      }),
    );
    let careful;
    try {
      careful = await carefulPartner({
        base,
        entry,
        until: () => performance.now() - started >= durationMs,
        alive: sandbox.alive,
        log,
      });
    } finally {
      stopping = true;
      await Promise.race([abuse, new Promise((resolve) => setTimeout(resolve, 20_000).unref())]);
    }
    const seconds = (performance.now() - started) / 1000;
    const holdings = await held.check();
    const sessionsStored = await readdir(join(dataDir, 'sessions')).then(
      (names) => names.filter((n) => n.endsWith('.json')).length,
      () => null,
    );
    const health = await fetch(`${base}/healthz`).then(
      (r) => r.status,
      () => null,
    );
    peak = await memory.stop();
    const up = sandbox.alive() && health === 200;
    const crash = up
      ? null
      : sandbox
          .stderr()
          .split('\n')
          .filter((l) => /heap|fatal|error/i.test(l))
          .slice(-3)
          .join(' | ');
    return {
      seconds,
      careful: { ...careful, holdings },
      process: {
        sessionsStored,
        up,
        health,
        peakHeapMb: peak.heapMb,
        peakRssMb: peak.rssMb,
        loopDelayMs: peak.loopDelayMs,
        cpuShare: peak.cpuShare,
        heapLimitMb,
        headroom: peak.heapMb === null ? null : 1 - peak.heapMb / heapLimitMb,
        crash,
      },
      abuses: stats,
    };
  } finally {
    stopping = true;
    await memory.stop();
    await sandbox.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** `npm run bench -- --only hostile`: 60 s, printed. */
export async function run({ args }) {
  const without = args.without ? args.without.split(',') : [];
  const abuses = (args.abuses ? args.abuses.split(',') : ABUSES).filter((name) => !without.includes(name));
  for (const name of [...abuses, ...without])
    if (!ABUSE[name]) throw new Error(`--abuses, --without: no abuse ${name}; there are ${ABUSES.join(', ')}`);
  const durationMs = Number(args.seconds ?? 60) * 1000;
  const env = args['max-sessions'] ? { MAX_SESSIONS: args['max-sessions'] } : {};
  const figures = await hostileTenant({ durationMs, abuses, env, log: (line) => console.log(`  ${line}`) });
  if (env.MAX_SESSIONS) console.log(`  (MAX_SESSIONS=${env.MAX_SESSIONS} for this run)`);
  printFigures(figures);
}

export function printFigures({ seconds, careful, process: p, abuses }) {
  const mb = (n) => (n === null ? 'n/a' : `${n.toFixed(0)} MB`);
  console.log(`  ${seconds.toFixed(0)} s of abuse, ${careful.runs.length} careful runs`);
  console.log(
    `  careful partner: ${careful.requests} requests, ${careful.failed.length} failed (target 0)${
      careful.failed.length
        ? `: ${careful.failed
            .slice(0, 5)
            .map((f) => `${f.method} ${f.path} ${f.status ?? f.error}`)
            .join(', ')}`
        : ''
    }`,
  );
  const broken = careful.runs.filter((r) => r.code !== 0);
  console.log(
    `  careful partner: runs that failed: ${broken.length} of ${careful.runs.length}${broken.length ? ` (${broken.map((r) => r.problem).join('; ')})` : ''}`,
  );
  console.log(
    `  careful partner: every required readiness check passed in every run: ${careful.ready ? 'yes' : `no (${careful.runs.map((r) => r.notPassed.join(' ') || 'ok').join('; ')})`}`,
  );
  console.log(
    `  careful partner: slowest ${careful.slowest.map((r) => `${r.method} ${r.path} ${r.ms.toFixed(0)} ms`).join(', ')}`,
  );
  console.log(
    `  careful partner: latency p50 ${careful.p50Ms?.toFixed(1)} ms, p99 ${careful.p99Ms?.toFixed(1)} ms (target under ${TARGET_P99_MS} ms), max ${careful.maxMs?.toFixed(1)} ms`,
  );
  const h = careful.holdings;
  console.log(
    `  careful partner: dashboard sessions signed in before the abuse and still signed in at its end: ${h.sessionsKept} of ${h.sessions}; its dashboard stream open throughout: ${h.streamOpen ? 'yes' : `no (${h.streamProblem})`}`,
  );
  console.log(
    `  process: ${p.up ? 'up' : `DOWN (${p.crash || `healthz ${p.health}`})`}; peak heap ${mb(p.peakHeapMb)} of --max-old-space-size=${p.heapLimitMb} MB (headroom ${p.headroom === null ? 'n/a' : `${(p.headroom * 100).toFixed(0)} %`}), peak RSS ${mb(p.peakRssMb)}`,
  );
  console.log(`  process: login sessions stored at the end: ${p.sessionsStored ?? 'n/a'} (MAX_SESSIONS: 10000 hosted)`);
  console.log(
    `  process: CPU ${p.cpuShare === null ? 'n/a' : `${(p.cpuShare * 100).toFixed(0)} % of one core`} over the run; event loop delay p99 of each 250 ms: median ${p.loopDelayMs?.median.toFixed(1) ?? 'n/a'} ms, worst ${p.loopDelayMs?.worst.toFixed(1) ?? 'n/a'} ms`,
  );
  for (const [name, s] of Object.entries(abuses)) {
    const statuses = Object.entries(s.statuses)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([status, n]) => `${status}×${n}`)
      .join(' ');
    console.log(
      `  abuse ${name.padEnd(16)} ${String(s.sent).padStart(6)} sent  ${statuses}${s.errors ? `  errors×${s.errors} (${s.lastError})` : ''}${s.note ? `  ${s.note()}` : ''}`,
    );
  }
}

// ---- The careful partner ----

/** careful.mjs on fresh accounts, back to back, until `until()` (at least once); each with its own `water-sandbox listen`. */
async function carefulPartner({ base, entry, until, alive, log }) {
  const runs = [];
  const records = [];
  do {
    const one = await carefulRun(base, entry, alive).catch((error) => ({
      code: null,
      ready: false,
      notPassed: [],
      problem: `${String(error?.message ?? error).slice(0, 300)}${error?.cause ? ` (${error.cause.code ?? error.cause.message})` : ''}`,
      records: [],
      ms: 0,
    }));
    runs.push(one);
    records.push(...one.records);
    log(
      `careful run ${runs.length}: exit ${one.code}${one.problem ? ` (${one.problem})` : ''}, ${one.records.length} requests, ${one.ready ? 'ready' : `not ready: ${one.notPassed.join(' ')}`} (${(one.ms / 1000).toFixed(1)} s)`,
    );
  } while (!until() && alive());
  // A failed request: no answer, a server error or a limit the partner did not set up itself (its
  // drills' faults are marked X-Sandbox-Fault), or a request-level refusal (408, 413).
  const failed = records.filter(
    (r) =>
      r.status === null ||
      (r.status >= 500 && !r.injected) ||
      (r.status === 429 && !r.injected) ||
      r.status === 408 ||
      r.status === 413,
  );
  const sorted = records.map((r) => r.ms).sort((a, b) => a - b);
  return {
    runs: runs.map(({ records: _, ...rest }) => rest),
    slowest: [...records].sort((a, b) => b.ms - a.ms).slice(0, 5),
    requests: records.length,
    failed,
    ready: runs.every((r) => r.ready),
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    maxMs: sorted.at(-1) ?? null,
  };
}

async function freePort() {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function carefulRun(base, entry, alive) {
  const started = performance.now();
  const created = await fetch(`${base}/sandbox/accounts`, { method: 'POST' });
  if (created.status !== 201)
    return {
      code: null,
      ready: false,
      notPassed: [],
      problem: `POST /sandbox/accounts answered ${created.status}`,
      records: [{ method: 'POST', path: '/sandbox/accounts', status: created.status, ms: performance.now() - started }],
      ms: 0,
    };
  const account = await created.json();
  const port = await freePort();
  const listener = spawn(
    process.execPath,
    [
      ...entry.nodeArgs,
      entry.main,
      'listen',
      '--forward-to',
      `http://127.0.0.1:${port}/webhooks`,
      '--sandbox',
      base,
      '--api-key',
      account.apiKey,
    ],
    {
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const dir = await mkdtemp(join(tmpdir(), 'careful-'));
  try {
    let out = '';
    listener.stderr.setEncoding('utf8').on('data', (chunk) => (out += chunk));
    const endpoint = await new Promise((resolve, reject) => {
      listener.stdout.setEncoding('utf8').on('data', (chunk) => {
        out += chunk;
        const match = /Ready\. Webhooks sent to (\S+) are forwarded to /.exec(out);
        if (match) resolve(match[1]);
      });
      listener.once('exit', (code) => reject(new Error(`water-sandbox listen exited with ${code}: ${out}`)));
    });
    const file = join(dir, 'requests.json');
    const sample = spawn(process.execPath, ['--import', RECORDER, CAREFUL], {
      env: {
        PATH: process.env.PATH ?? '',
        SANDBOX_URL: base,
        WATER_API_KEY: account.apiKey,
        WATER_USER_EMAIL: account.user.email,
        WATER_USER_PASSWORD: account.user.password,
        WATER_RECEIVER_PORT: String(port),
        WATER_WEBHOOK_URL: endpoint,
        FETCH_RECORD_FILE: file,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let sampleOut = '';
    sample.stdout.setEncoding('utf8').on('data', (chunk) => (sampleOut += chunk));
    sample.stderr.setEncoding('utf8').on('data', (chunk) => (sampleOut += chunk));
    // A run waits for its webhooks without a deadline of its own: it is stopped when the sandbox is gone, or after 90 s.
    const sampleStarted = performance.now();
    const watch = setInterval(() => {
      if (!alive() || performance.now() - sampleStarted > 90_000) sample.kill('SIGTERM');
    }, 250);
    const [code] = await once(sample, 'exit');
    clearInterval(watch);
    const records = JSON.parse(await readFile(file, 'utf8').catch(() => '[]'));
    const report = await fetch(`${base}/sandbox/readiness`, {
      headers: { authorization: `Bearer ${account.apiKey}` },
    }).then(
      (r) => r.json(),
      () => null,
    );
    // Why a run failed waiting for a webhook: what its newest deliveries' attempts met.
    const late =
      code === 0
        ? null
        : await fetch(`${base}/sandbox/deliveries?perPage=5`, {
            headers: { authorization: `Bearer ${account.apiKey}` },
          })
            .then((r) => r.json())
            .then(
              (log) =>
                log.deliveries
                  .map(
                    (d) =>
                      `${d.kind} ${d.state} [${d.attempts.map((a) => a.statusCode ?? a.error?.slice(0, 40)).join(', ')}]`,
                  )
                  .join('; '),
              () => null,
            );
    const notPassed = report?.checks
      ?.filter((c) => c.required && c.status !== 'passed' && c.status !== 'not_applicable')
      .map((c) => `${c.id}=${c.status}`) ?? ['no report'];
    return {
      code,
      ready: code === 0 && report?.ready === true,
      notPassed,
      problem:
        code === 0
          ? null
          : `${sampleOut.split('\n').find((l) => /^\w*Error\b/.test(l)) ?? sampleOut.split('\n').filter(Boolean).slice(-2).join(' | ')}${late ? `; newest deliveries: ${late}` : ''}`,
      records,
      ms: performance.now() - started,
    };
  } finally {
    listener.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * What the careful partner holds through the whole abuse, from its own network: two dashboard
 * sessions (the shared demo user's and its own account's user's, signed in before the abuse) and
 * a dashboard event stream. `check()` says at the end whether they lasted.
 */
async function carefulHoldings(base) {
  const created = await fetch(`${base}/sandbox/accounts`, {
    method: 'POST',
    headers: { 'x-forwarded-for': CAREFUL_ADDRESS, 'content-type': 'application/json' },
    body: '{"locations": 1}',
  });
  if (created.status !== 201) throw new Error(`the careful partner's account could not be created: ${created.status}`);
  const account = await created.json();
  const sessions = [];
  for (const [email, password] of [
    ['demo@example.com', 'demo-password'],
    [account.user.email, account.user.password],
  ]) {
    const { status: code, cookie } = await formSignInWithCookie(
      base,
      '/',
      '/dashboard/sign-in',
      email,
      password,
      CAREFUL_ADDRESS,
    );
    if (code !== 303 || cookie === null) throw new Error(`the careful partner could not sign in: ${code}`);
    sessions.push(cookie);
  }
  const behindProxy = { 'x-forwarded-for': CAREFUL_ADDRESS, 'x-forwarded-proto': 'https' };
  const stream = holdStream(`${base}/dashboard/events`, { ...behindProxy, cookie: sessions[1] });
  let streamProblem = null;
  const openedWith = await stream.opened.catch((error) => String(error?.message ?? error));
  if (openedWith !== 200) streamProblem = `opened with ${openedWith}`;
  let ended = false;
  void stream.closed.then(() => (ended = true));
  return {
    async check() {
      let sessionsKept = 0;
      for (const cookie of sessions) {
        const page = await fetch(`${base}/`, { headers: { ...behindProxy, cookie } }).then(
          (r) => r.text(),
          () => '',
        );
        if (page.includes('id="sign-out"')) sessionsKept++;
      }
      if (streamProblem === null && ended) streamProblem = 'it was ended during the run';
      stream.end();
      return { sessions: sessions.length, sessionsKept, streamOpen: streamProblem === null, streamProblem };
    },
  };
}

/** Resolves once `stopped()` is true (checked every 100 ms). */
async function until(stopped) {
  while (!stopped()) await new Promise((resolve) => setTimeout(resolve, 100));
  return 'stopped';
}

// ---- Watching the process ----

/**
 * Polls the sandbox's /metrics (opened by METRICS_OPEN: off on a hosted sandbox without ADMIN_TOKEN) every 250 ms for
 * its heap, its event loop's delay (p99 of each window between polls) and its CPU time, and /proc
 * for its RSS; `stop` gives the peaks, the delays' median and worst window, and the CPU the
 * process used over the run as a share of one core: what tells the sandbox's own queue from the
 * machine's (the load generator and the careful partner share the same cores).
 */
function watchMemory(base, sandbox) {
  let heapMb = null;
  let rssMb = null;
  const delaysMs = [];
  const cpu = { first: null, last: null };
  let running = true;
  const metric = (text, name) => {
    const match = new RegExp(`^${name} (\\d+(?:\\.\\d+)?(?:e-?\\d+)?)`, 'm').exec(text);
    return match ? Number(match[1]) : null;
  };
  const poll = (async () => {
    while (running) {
      try {
        rssMb = Math.max(rssMb ?? 0, sandbox.rssMb());
      } catch {
        // The process is gone.
      }
      const text = await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(2000) }).then(
        (r) => r.text(),
        () => '',
      );
      const used = metric(text, 'nodejs_heap_size_used_bytes');
      if (used !== null) heapMb = Math.max(heapMb ?? 0, used / 2 ** 20);
      const delay = metric(text, 'nodejs_eventloop_lag_p99_seconds');
      if (delay !== null) delaysMs.push(delay * 1000);
      const cpuSeconds = metric(text, 'process_cpu_seconds_total');
      if (cpuSeconds !== null) {
        const at = { cpuSeconds, ms: performance.now() };
        cpu.first ??= at;
        cpu.last = at;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();
  return {
    async stop() {
      running = false;
      await poll;
      const sorted = [...delaysMs].sort((a, b) => a - b);
      return {
        heapMb,
        rssMb,
        loopDelayMs: sorted.length ? { median: percentile(sorted, 0.5), worst: sorted.at(-1) } : null,
        cpuShare:
          cpu.first && cpu.last && cpu.last.ms > cpu.first.ms
            ? (cpu.last.cpuSeconds - cpu.first.cpuSeconds) / ((cpu.last.ms - cpu.first.ms) / 1000)
            : null,
      };
    },
  };
}

// ---- The hostile tenant ----

function newStats() {
  return { sent: 0, statuses: {}, errors: 0, lastError: null };
}

function count(stats, status) {
  stats.sent++;
  stats.statuses[status] = (stats.statuses[status] ?? 0) + 1;
}

/** Runs `once` in `workers` parallel loops until stopped; each call's answer status is counted (a thrown error as an error). */
async function loop(stats, workers, stopped, once) {
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (!stopped()) {
        try {
          count(stats, await once());
        } catch (error) {
          stats.sent++;
          stats.errors++;
          stats.lastError = String(error?.cause?.code ?? error?.message ?? error).slice(0, 80);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    }),
  );
}

/** A request of the hostile tenant: its API key unless `auth` is false, from an address of its /64. */
async function call(base, hostile, method, path, { body, headers = {}, auth = true, raw } = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    redirect: 'manual',
    signal: AbortSignal.timeout(15_000),
    headers: {
      'x-forwarded-for': hostileAddress(),
      ...(auth ? { authorization: `Bearer ${hostile.apiKey}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(raw !== undefined ? { body: raw, duplex: 'half' } : body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return res;
}

async function status(res) {
  await res.arrayBuffer().catch(() => null);
  return res.status;
}

async function hostileAccount(base) {
  const res = await fetch(`${base}/sandbox/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': hostileAddress() },
    body: '{"locations": 5}',
  });
  if (res.status !== 201)
    throw new Error(`the hostile account could not be created: ${res.status} ${await res.text()}`);
  const account = await res.json();
  return {
    accountId: account.accountId,
    apiKey: account.apiKey,
    user: account.user,
    locations: account.locations.map((l) => l.locationId),
  };
}

/** The hostile account's relay endpoints (the sandbox's own URL: accepted whatever the policy), made once. */
async function relayEndpoints(base, hostile, prefix, n) {
  const endpoints = [];
  for (let i = 0; i < n; i++) {
    const res = await call(base, hostile, 'POST', '/sandbox/relays', { body: { name: `${prefix}-${i}` } });
    const relay = await res.json();
    endpoints.push(relay);
  }
  return endpoints;
}

/**
 * Signs in through a form (the auth host's /login or the dashboard's), with a fresh cookie and its
 * CSRF token, from `address` (a fresh one of the hostile /64 by default). Resolves with the
 * answer's status and the session cookie, if one was set (behind the https proxy it is).
 */
async function formSignInWithCookie(base, formPath, postPath, email, password, address = hostileAddress()) {
  const behindProxy = { 'x-forwarded-for': address, 'x-forwarded-proto': 'https' };
  const page = await fetch(`${base}${formPath}`, {
    headers: behindProxy,
    signal: AbortSignal.timeout(15_000),
  });
  const cookie = page.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const html = await page.text();
  const hidden = Object.fromEntries(
    [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], unescapeHtml(m[2])]),
  );
  const res = await fetch(`${base}${postPath}`, {
    method: 'POST',
    redirect: 'manual',
    signal: AbortSignal.timeout(15_000),
    headers: { ...behindProxy, cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...hidden, email, password }),
  });
  const session = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .find((c) => c.includes('water_sandbox_session='));
  return { status: await status(res), cookie: session ?? null };
}

const formSignIn = async (...args) => (await formSignInWithCookie(...args)).status;

/** Reads an event stream until it ends: `opened` (its status), `closed` (when it ended), `end()` to drop it. */
function holdStream(url, headers) {
  let request;
  const opened = new Promise((resolve, reject) => {
    request = get(url, { agent: streamAgent, headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      res.resume();
      resolve(res);
    });
    request.on('error', reject);
  });
  const closed = opened.then(
    (res) =>
      new Promise((resolve) => {
        res.once('close', resolve);
        res.once('error', resolve);
      }),
    () => undefined,
  );
  return { opened: opened.then((res) => res.statusCode), closed, end: () => request.destroy() };
}

/** One socket per held stream: none pooled, none reused. */
const streamAgent = new Agent({ keepAlive: false, maxSockets: Infinity });

const LOGIN_QUERY = new URLSearchParams({
  response_type: 'code',
  client_id: 'demo-client',
  redirect_uri: 'waterapp://callback',
}).toString();

/** Each abuse: `({ base, hostile, scale, stats, stopped })`, resolving when stopped. */
const ABUSE = {
  // New accounts as fast as they come, every one from a fresh address of the same /64, and some as IPv4-mapped addresses.
  accounts: ({ base, hostile, scale, stats, stopped }) =>
    loop(stats, scale.workers, stopped, async () =>
      status(
        await call(base, hostile, 'POST', '/sandbox/accounts', {
          auth: false,
          body: {},
          headers: stats.sent % 5 === 4 ? { 'x-forwarded-for': `::ffff:203.0.113.${66 + (stats.sent % 3)}` } : {},
        }),
      ),
    ),

  // Faults that never match, each with a body as large as a request may be.
  faults: ({ base, hostile, scale, stats, stopped }) =>
    loop(stats, scale.workers, stopped, async () =>
      status(
        await call(base, hostile, 'POST', '/sandbox/faults', {
          body: {
            method: 'GET',
            path: `/v1/hostile-${stats.sent}`,
            status: 503,
            times: null,
            body: { pad: 'x'.repeat(scale.bigBody) },
          },
        }),
      ),
    ),

  // OAuth clients, registered over and over (a native redirect URI: nothing is ever sent to it).
  'oauth-clients': ({ base, hostile, scale, stats, stopped }) =>
    loop(stats, scale.workers, stopped, async () =>
      status(
        await call(base, hostile, 'POST', '/sandbox/oauth-clients', {
          body: {
            name: 'Mallory',
            companyName: 'Hostile Inc.',
            email: 'mallory@hostile.example',
            phone: '+1 555 0100 666',
            applicationName: `Hostile App ${stats.sent}`,
            applicationWebsite: 'https://hostile.example',
            description: 'x'.repeat(1000),
            redirectUri: `hostile${stats.sent}://callback`,
            signOutUri: 'https://hostile.example/out',
          },
        }),
      ),
    ),

  // Subscriptions of its relay endpoints (nobody listens: every confirmation fails and is retried)
  // up to the cap of each location, churned (the oldest deleted on a 409), and endpoints the
  // sandbox must refuse: address literals of loopback, private and deprecated IPv6 forms.
  subscriptions: async ({ base, hostile, scale, stats, stopped }) => {
    const relays = await relayEndpoints(base, hostile, 'sub', scale.subscriptionRelays);
    const refused = [
      'https://127.0.0.1/x',
      'https://[::7f00:1]/x',
      'https://10.0.0.1/x',
      'https://[2002:a9fe:a9fe::1]/x',
      'https://localhost/x',
      'http://[::1]/x',
    ];
    const held = new Map(hostile.locations.map((l) => [l, []]));
    let n = 0;
    await loop(stats, scale.workers, stopped, async () => {
      const i = n++;
      const locationId = hostile.locations[i % hostile.locations.length];
      const endpoint = i % 4 === 3 ? refused[i % refused.length] : relays[i % relays.length].endpoint;
      const res = await call(base, hostile, 'POST', `/v1/locations/${locationId}/subscriptions`, {
        body: { endpoint },
      });
      if (res.status === 200) held.get(locationId).push((await res.json()).subscriptionId);
      else if (res.status === 409 && held.get(locationId).length > 0)
        await status(await call(base, hostile, 'DELETE', `/v1/subscriptions/${held.get(locationId).shift()}`));
      return status(res);
    });
  },

  // One confirmation (to a relay nobody listens on) redelivered over and over.
  redeliveries: async ({ base, hostile, scale, stats, stopped }) => {
    const [relay] = await relayEndpoints(base, hostile, 'storm', 1);
    await status(
      await call(base, hostile, 'POST', `/v1/locations/${hostile.locations[0]}/subscriptions`, {
        body: { endpoint: relay.endpoint },
      }),
    );
    const listed = await (await call(base, hostile, 'GET', '/sandbox/deliveries?kind=confirmation&perPage=1')).json();
    const deliveryId = listed.deliveries?.[0]?.deliveryId;
    if (!deliveryId) throw new Error(`no delivery to redeliver: ${JSON.stringify(listed).slice(0, 200)}`);
    await loop(stats, scale.workers, stopped, async () =>
      status(
        await call(base, hostile, 'POST', `/sandbox/deliveries/${deliveryId}/redeliver`, {
          body: { sameDeliveryId: stats.sent % 2 === 0 },
        }),
      ),
    );
  },

  // Scenario runs started at every location, never cancelled.
  'scenario-runs': ({ base, hostile, scale, stats, stopped }) =>
    loop(stats, scale.workers, stopped, async () => {
      const name = ['slow-leak-escalates', 'flapping-alert', 'cold-snap', 'away-leak', 'monitor-offline'][
        stats.sent % 5
      ];
      return status(
        await call(base, hostile, 'POST', `/sandbox/scenarios/${name}/runs`, {
          body: { locationId: hostile.locations[stats.sent % hostile.locations.length] },
        }),
      );
    }),

  // Relay streams opened and never read, then large requests sent to those relays (each is
  // written to a stream whose reader reads nothing).
  'unread-relays': async ({ base, hostile, scale, stats, stopped }) => {
    const relays = await relayEndpoints(base, hostile, 'stall', scale.stalledStreams);
    const { hostname, port } = new URL(base);
    const sockets = [];
    const streams = { accepted: 0, refused: 0 };
    stats.note = () => `streams held unread: ${streams.accepted}, refused: ${streams.refused}`;
    for (const relay of relays) {
      const socket = connect(Number(port), hostname);
      socket.on('error', () => {});
      await once(socket, 'connect');
      socket.write(
        `GET /sandbox/relays/${relay.relayId}/requests HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${hostile.apiKey}\r\nX-Relay-Key: ${relay.relayKey}\r\nAccept: text/event-stream\r\nX-Forwarded-For: ${hostileAddress()}\r\n\r\n`,
      );
      const [first] = await once(socket, 'data');
      if (/^HTTP\/1\.1 200/.test(String(first))) streams.accepted++;
      else streams.refused++;
      socket.pause();
      sockets.push(socket);
    }
    const pad = 'y'.repeat(scale.bigBody);
    await loop(stats, scale.relayPosters, stopped, async () => {
      const relay = relays[stats.sent % relays.length];
      return status(
        await call(base, hostile, 'POST', `/relay/${relay.relayId}`, {
          body: { pad },
          headers: { 'x-relay-key': relay.relayKey },
        }),
      );
    });
    for (const socket of sockets) socket.destroy();
  },

  // Pages of the sign-in forms, requested without a cookie.
  pages: ({ base, hostile, scale, stats, stopped }) =>
    loop(stats, scale.workers, stopped, async () =>
      status(await call(base, hostile, 'GET', stats.sent % 2 === 0 ? '/' : `/login?${LOGIN_QUERY}`, { auth: false })),
    ),

  // Wrong passwords on both sign-in forms: for its own user, the shared demo user and nobody.
  'sign-ins': ({ base, hostile, scale, stats, stopped }) =>
    loop(stats, scale.workers, stopped, async () => {
      const email = [hostile.user.email, 'demo@example.com', `nobody${stats.sent}@hostile.example`][stats.sent % 3];
      return stats.sent % 2 === 0
        ? formSignIn(base, `/login?${LOGIN_QUERY}`, '/login', email, 'wrong-password')
        : formSignIn(base, '/', '/dashboard/sign-in', email, 'wrong-password');
    }),

  // Sign-ins that succeed, as fast as they come, with the shared demo user and its own: most from
  // a fresh /64 of its /48 each (a fresh client for the /64's limit, one network for the /48's and
  // for the sessions' holder), every fourth from its own /64: SIGN_IN_LIMIT answers 429 to both.
  'sign-in-flood': ({ base, hostile, scale, stats, stopped }) =>
    loop(stats, scale.signInFlooders, stopped, async () => {
      const n = stats.sent;
      const [email, password] =
        n % 2 === 0 ? ['demo@example.com', 'demo-password'] : [hostile.user.email, hostile.user.password];
      const from = n % 4 === 3 ? hostileAddress() : hostileSiteAddress();
      return n % 3 === 0
        ? formSignIn(base, `/login?${LOGIN_QUERY}`, '/login', email, password, from)
        : formSignIn(base, '/', '/dashboard/sign-in', email, password, from);
    }),

  // Every event stream a replica has (MAX_OPEN_STREAMS_TOTAL, 500 hosted): free accounts (20 an
  // hour per IPv4 address: from two), each holding every stream it may (10 dashboard streams of one
  // signed-in session, 5 relay streams), each reopened a second after it ends or is refused.
  'stream-grab': async ({ base, scale, stats, stopped }) => {
    const grabbers = [];
    for (let i = 0; i < scale.grabAccounts && !stopped(); i++) {
      const from = `192.0.2.${10 + Math.floor(i / 18)}`;
      const res = await fetch(`${base}/sandbox/accounts`, {
        method: 'POST',
        headers: { 'x-forwarded-for': from, 'content-type': 'application/json' },
        body: '{"locations": 1}',
      });
      if (res.status !== 201) {
        count(stats, res.status);
        continue;
      }
      grabbers.push({ ...(await res.json()), from });
    }
    const held = { streams: 0, most: 0 };
    stats.note = () => `${grabbers.length} accounts; most streams held at once: ${held.most}`;
    const holdForEver = async (open) => {
      while (!stopped()) {
        const stream = open();
        const code = await stream.opened.catch(() => 'error');
        count(stats, code);
        if (code === 200) {
          held.most = Math.max(held.most, ++held.streams);
          const ended = await Promise.race([stream.closed.then(() => 'ended'), until(stopped)]);
          held.streams--;
          if (ended !== 'ended') stream.end();
        } else stream.end();
        if (!stopped()) await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    };
    await Promise.all(
      grabbers.map(async (grabber) => {
        const signedIn = await formSignInWithCookie(
          base,
          '/',
          '/dashboard/sign-in',
          grabber.user.email,
          grabber.user.password,
          grabber.from,
        );
        const key = { authorization: `Bearer ${grabber.apiKey}`, 'x-forwarded-for': grabber.from };
        const relays = [];
        for (let i = 0; i < 5; i++) {
          const res = await fetch(`${base}/sandbox/relays`, { method: 'POST', headers: key });
          if (res.status === 200) relays.push(await res.json());
        }
        const dashboard = {
          cookie: signedIn.cookie ?? '',
          'x-forwarded-proto': 'https',
          'x-forwarded-for': grabber.from,
        };
        await Promise.all([
          ...Array.from({ length: 10 }, () => holdForEver(() => holdStream(`${base}/dashboard/events`, dashboard))),
          ...relays.map((relay) =>
            holdForEver(() =>
              holdStream(`${base}/sandbox/relays/${relay.relayId}/requests`, {
                ...key,
                'x-relay-key': relay.relayKey,
              }),
            ),
          ),
        ]);
      }),
    );
  },

  // Bodies far over the limit: declared (Content-Length) and streamed (chunked, no length).
  'oversized-bodies': ({ base, hostile, scale, stats, stopped }) =>
    loop(stats, scale.workers, stopped, async () => {
      if (stats.sent % 2 === 0)
        return status(
          await call(base, hostile, 'POST', '/sandbox/faults', { body: { pad: 'z'.repeat(scale.oversizedBytes) } }),
        );
      const chunk = new TextEncoder().encode('z'.repeat(64 * 1024));
      let left = Math.ceil(scale.oversizedBytes / chunk.length);
      const stream = new ReadableStream({
        pull(controller) {
          if (left-- > 0) controller.enqueue(chunk);
          else controller.close();
        },
      });
      return status(
        await call(base, hostile, 'POST', '/sandbox/faults', {
          raw: stream,
          headers: { 'content-type': 'application/json' },
        }),
      );
    }),

  // Connections that send their headers a few bytes at a time and never finish them.
  'slow-headers': async ({ base, scale, stats, stopped }) => {
    const { hostname, port } = new URL(base);
    await Promise.all(
      Array.from({ length: scale.slowSockets }, async () => {
        while (!stopped()) {
          const socket = connect(Number(port), hostname);
          socket.on('error', () => {});
          let answer = '';
          socket.setEncoding('utf8').on('data', (chunk) => (answer += chunk));
          // Not events.once: it rejects on 'error', and a reset connection is closed all the same.
          const closed = new Promise((resolve) => socket.once('close', resolve));
          socket.write(
            `GET /v1/locations HTTP/1.1\r\nHost: ${hostname}\r\nX-Forwarded-For: ${hostileAddress()}\r\nX-Slow: `,
          );
          const drip = setInterval(() => {
            if (stopped()) socket.destroy();
            else if (socket.writable) socket.write('a');
          }, 500);
          await closed;
          clearInterval(drip);
          count(stats, /^HTTP\/1\.1 (\d+)/.exec(answer)?.[1] ?? (stopped() ? 'stopped' : 'closed'));
        }
      }),
    );
  },
};
