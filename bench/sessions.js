// Visitors cost nothing (issue 29): 30,000 cookieless GET / (5,000 with --quick) to one sandbox
// on a DATA_DIR, the time of one request over the first thousand and over the last thousand
// (target: last within 1.2x of first) and the login sessions stored after them (target: 0). Then
// what saving one login session costs with 10 and with 10,000 sessions stored (target: the
// same), in alternating rounds on two stores side by side.
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { ManualClock } from '../dist/core/clock.js';
import { EmbeddedStore } from '../dist/store/embedded/embedded-store.js';
import { median } from './lib/measure.js';
import { BENCH_NOW, startSandbox } from './lib/sandbox.js';

export const title = 'visitors and login sessions';

/** Cookieless visits measured (--quick: 5,000, a look while developing). */
const visitsOf = (args) => (args.quick ? 5_000 : 30_000);
const WINDOW = 1000;
/** Visits before the measured ones, so the first thousand measure the sandbox, not the JIT warming up. */
const WARM_UP = 1000;
/** Visitors at once: each sends its requests one after the other on a keep-alive connection of its own. */
const VISITORS = 4;
const saveRoundsOf = (args) => (args.quick ? 3 : 10);
const SAVES_PER_ROUND = 50;

const callback = (fn) => new Promise((resolve, reject) => fn((err, value) => (err ? reject(err) : resolve(value))));

function visit(url, agent) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    get(url, { agent }, (res) => {
      res.resume();
      res.on('end', () =>
        res.statusCode === 200
          ? resolve({ ms: performance.now() - started, cookies: res.headers['set-cookie'] ?? [] })
          : reject(new Error(`GET /: status ${res.statusCode}`)),
      );
    }).on('error', reject);
  });
}

async function visitors(visits) {
  const dir = await mkdtemp(join(tmpdir(), 'bench-visitors-'));
  const sandbox = await startSandbox({ env: { DATA_DIR: join(dir, 'data') } });
  try {
    const times = [];
    let sessionCookies = 0;
    let next = -WARM_UP;
    let started = performance.now();
    await Promise.all(
      Array.from({ length: VISITORS }, async () => {
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        while (next < visits) {
          const counted = next++ >= 0;
          if (next === 0) started = performance.now();
          // No cookie is sent: each request is a new visitor.
          const { ms, cookies } = await visit(`${sandbox.url}/`, agent);
          if (counted) times.push(ms);
          sessionCookies += cookies.filter((c) => c.includes('session')).length;
        }
        agent.destroy();
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    await sandbox.store.flush();
    const stored = await callback((done) => sandbox.store.sessions.length(done));
    const first = median(times.slice(0, WINDOW));
    const last = median(times.slice(-WINDOW));
    console.log(
      `${visits} cookieless GET / (${VISITORS} visitors at once, DATA_DIR on disk, after ${WARM_UP} not counted) in ${seconds.toFixed(1)} s`,
    );
    console.log(
      `one request, median of the first ${WINDOW}: ${first.toFixed(3)} ms; of the last ${WINDOW}: ${last.toFixed(3)} ms; last / first ${(last / first).toFixed(2)} (target <= 1.2)`,
    );
    console.log(`login sessions stored: ${stored}; session cookies sent: ${sessionCookies} (target 0 and 0)`);
  } finally {
    await sandbox.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function sessionStore(stored, dir) {
  const clock = new ManualClock(BENCH_NOW);
  const { store } = await EmbeddedStore.open({ dir, clock, deliveryLogLimit: 10, sessionTtlMs: 86_400_000 });
  const session = (i) => ({
    cookie: { originalMaxAge: 86_400_000, httpOnly: true, path: '/', sameSite: 'lax' },
    userId: `user-${i}`,
    accountId: 'account',
    csrfToken: 'x'.repeat(32),
  });
  const save = (sid, i) => callback((done) => store.sessions.set(sid, session(i), done));
  for (let i = 0; i < stored; i += 500)
    await Promise.all(Array.from({ length: Math.min(500, stored - i) }, (_, k) => save(`stored-${i + k}`, i + k)));
  await store.flush();
  let n = 0;
  return {
    /** The time (ms) of one save, over `count` saves of new sessions one after the other. */
    async saves(count) {
      const started = performance.now();
      for (let i = 0; i < count; i++) await save(`new-${n++}`, n);
      return (performance.now() - started) / count;
    },
    close: () => store.close(),
  };
}

async function sessionSaves(saveRounds) {
  const dir = await mkdtemp(join(tmpdir(), 'bench-sessions-'));
  try {
    const few = await sessionStore(10, join(dir, 'few'));
    const many = await sessionStore(10_000, join(dir, 'many'));
    await few.saves(SAVES_PER_ROUND);
    await many.saves(SAVES_PER_ROUND);
    const rounds = { few: [], many: [] };
    for (let i = 0; i < saveRounds; i++) {
      rounds.few.push(await few.saves(SAVES_PER_ROUND));
      rounds.many.push(await many.saves(SAVES_PER_ROUND));
    }
    const ratios = rounds.many.map((ms, i) => ms / rounds.few[i]);
    console.log(
      `one login session saved (its file written) with 10 stored: ${median(rounds.few).toFixed(3)} ms; with 10,000 stored: ${median(rounds.many).toFixed(3)} ms; ` +
        `ratio ${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)} over ${saveRounds} alternating rounds of ${SAVES_PER_ROUND}; target 1)`,
    );
    await few.close();
    await many.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function run({ args }) {
  await visitors(visitsOf(args));
  await sessionSaves(saveRoundsOf(args));
}
