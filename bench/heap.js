// What the embedded store's index costs a request through the heap it holds, apart from
// everything else that grows with accounts: two sandboxes on `:memory:` with the fixtures alone,
// one of them also holding --accounts (100,000 by default) accounts' worth of index-shaped
// entries (bench/lib/held-index.js), a page of readings and a location GET on each in
// alternating rounds. The ratios are the plain sandbox's cost over the other's (1: the held heap
// costs nothing). Issue 42: readings at 100,000 accounts stayed under 0.9 on Node 24 in
// `--only scale` while the same request allocates little of its own.
import { startChild } from './lib/child.js';
import { fetchJson } from './lib/measure.js';
import { DEMO_API_KEY } from './lib/sandbox.js';
import { READINGS_QUERY } from './scale.js';
import { cpuRatioOver, formatRatio, interleave, ratioOver, roundsOf } from './static.js';

export const title =
  "the index's heap: a request with and without many accounts' index held (two sandboxes, alternating rounds)";

const AUTH = { authorization: `Bearer ${DEMO_API_KEY}` };
const HELD_INDEX = new URL('./lib/held-index.js', import.meta.url).href;

export async function run({ args }) {
  const held = Number(args.accounts ?? 100_000);
  const rounds = roundsOf(args);
  const env = { DATA_DIR: ':memory:' };
  const plain = await startChild({ ...env, BENCH_HELD_ACCOUNTS: '0' }, ['--import', HELD_INDEX]);
  const holding = await startChild({ ...env, BENCH_HELD_ACCOUNTS: String(held) }, ['--import', HELD_INDEX]);
  try {
    const { locations } = await fetchJson(`${plain.url}/v1/locations`, AUTH);
    const path = `/v1/locations/${locations[0].locationId}`;
    console.log(
      `${held} accounts' index entries held by the second sandbox (heap ${await heapMb(holding)} MB against ${await heapMb(plain)} MB); ${rounds} rounds of 1 s per case at 10 connections; Node ${process.version}`,
    );
    for (const [name, suffix] of [
      ['a page of readings', `/${READINGS_QUERY}`],
      ['GET a location', ''],
    ]) {
      const cases = [
        { name: 'plain', url: `${plain.url}${path}${suffix}`, headers: AUTH, pid: plain.pid },
        { name: 'holding', url: `${holding.url}${path}${suffix}`, headers: AUTH, pid: holding.pid },
      ];
      const r = await interleave(cases, rounds);
      const [a, b] = [r.get('plain'), r.get('holding')];
      const cpu = cpuRatioOver(b, a);
      console.log(
        `${name.padEnd(20)} speed with the index held / without: ${formatRatio(ratioOver(b, a))} by rate${cpu ? `, ${formatRatio(cpu)} by CPU a request` : ''}`,
      );
    }
  } finally {
    await plain.stop();
    await holding.stop();
  }
}

/** The sandbox's heap in use, from its own metrics (MB). */
async function heapMb(sandbox) {
  const text = await fetch(`${sandbox.url}/metrics`).then((res) => res.text());
  const used = /^nodejs_heap_size_used_bytes (\S+)$/m.exec(text);
  return used ? (Number(used[1]) / 1e6).toFixed(0) : '?';
}
