// The sandbox against static mocks, each in its own process: the built server as `npm start`
// runs it (dist/water-sandbox.js, the start flags, a DATA_DIR, every feature on: authentication,
// journal, metrics, faults, readiness evidence, X-Sandbox-Warning), Prism serving the sandbox's
// own answer as a static example of its own OpenAPI document, and a bare Express 5 route sending
// the same body. The sandbox logs at the default LOG_LEVEL (info): one line per request, written
// to its stdout (here /dev/null), as a served sandbox does. Targets (printed, not asserted): a year of readings by day at least
// 1.0x Prism (issue 32), and against the bare route sending the same body at least 0.5x, GET
// /v1/locations/{id} at least 0.85x the bare route, the readings p99 at 10 connections under 5 ms
// (issue 42, on Node 24: run the bench on each Node to compare). Rounds alternate every case, one second each, so a
// neighbour's load hits them alike; the ratios are medians over the rounds, with their range.
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import autocannon from 'autocannon';

import { startChild } from './lib/child.js';
import { median } from './lib/measure.js';
import { DEMO_API_KEY } from './lib/sandbox.js';
import { PRISM_VERSION, startBareProcess, startPrism } from './lib/static-mocks.js';

export const title = 'a computed answer against static mocks (each server in its own process)';

const LOCATION_ID = '2311f461-b957-4b4f-ad46-fe7cd7964881';
const READINGS_PATH = '/v1/locations/{locationId}/readings/water-usage';
/** A year by day ending on a fixed instant in the past, so the body is the same in every run: page 1 of 4, 100 readings. */
export const YEAR_BY_DAY = `/v1/locations/${LOCATION_ID}/readings/water-usage?startTime=2025-03-10T15:30:00.000Z&endTime=2026-03-10T15:30:00.000Z&groupBy=day&page=1&perPage=100`;
export const LOCATION = `/v1/locations/${LOCATION_ID}`;
const AUTH = { authorization: `Bearer ${DEMO_API_KEY}` };

/** Rounds of one second per case: --quick for a look while developing, the full count for figures. */
export const roundsOf = (args) => Number(process.env.BENCH_ROUNDS ?? (args.quick ? 5 : 15));

/** CPU seconds a process has used (user and system, from Linux's /proc at 100 ticks a second); null elsewhere. */
function cpuSeconds(pid) {
  if (pid === undefined || !existsSync(`/proc/${pid}/stat`)) return null;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** One burst at 10 connections; with the server's `pid`, also the CPU it used per request (µs), which a busy machine moves far less than the rate. */
async function burst(url, headers, seconds = 1, pid = undefined) {
  const before = cpuSeconds(pid);
  const result = await autocannon({ url, headers, connections: 10, duration: seconds, workers: 1 });
  const after = cpuSeconds(pid);
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  const cpuUs = before === null || after === null ? null : ((after - before) * 1e6) / result.requests.total;
  return { rps: result.requests.total / result.duration, p50: result.latency.p50, p99: result.latency.p99, cpuUs };
}

/**
 * After a 3 s warm-up each (Prism takes that long to reach its speed), runs every case once a round, in an order that turns around each round (so none is always
 * measured right after the same neighbour); returns, per case, its rounds.
 */
export async function interleave(cases, rounds) {
  for (const c of cases) await burst(c.url, c.headers, 3);
  const results = new Map(cases.map((c) => [c.name, []]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? cases : [...cases].reverse();
    for (const c of order) results.get(c.name).push(await burst(c.url, c.headers, 1, c.pid));
  }
  return results;
}

/** Median and range over rounds of a's rate over b's (neighbouring bursts of the same round). */
export function ratioOver(a, b) {
  const ratios = a.map((r, i) => r.rps / b[i].rps);
  return { median: median(ratios), low: Math.min(...ratios), high: Math.max(...ratios) };
}

/** The same for CPU per request, as b's over a's (above 1: a needs less CPU a request); null without /proc. */
export function cpuRatioOver(a, b) {
  if (a.some((r) => r.cpuUs === null) || b.some((r) => r.cpuUs === null)) return null;
  const ratios = a.map((r, i) => b[i].cpuUs / r.cpuUs);
  return { median: median(ratios), low: Math.min(...ratios), high: Math.max(...ratios) };
}

/** A ratio of ratioOver or cpuRatioOver as printed: the median, then the range of the rounds. */
export const formatRatio = (ratio) =>
  `${ratio.median.toFixed(2)} (rounds ${ratio.low.toFixed(2)}-${ratio.high.toFixed(2)})`;

async function text(url, headers = {}) {
  const res = await fetch(url, { headers });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`${url}: status ${res.status} ${body}`);
  return body;
}

/**
 * An OpenAPI document of the one readings operation whose 200 answer has `body` as its example
 * and nothing else: no parameters, security or schema for Prism to check, Prism at its fastest
 * (with the sandbox's whole document it serves less than half as many requests a second).
 */
function documentServing(body) {
  const answer = { description: 'A page of buckets.', content: { 'application/json': { example: JSON.parse(body) } } };
  return {
    openapi: '3.1.0',
    info: { title: 'water-sandbox readings, static', version: '1' },
    paths: { [READINGS_PATH]: { get: { responses: { 200: answer } } } },
  };
}

export async function run({ args }) {
  const rounds = roundsOf(args);
  const dataDir = await mkdtemp(join(tmpdir(), 'water-sandbox-bench-static-'));
  // LOG_LEVEL=info, the default: the request log line is part of what a request costs.
  const sandbox = await startChild({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
  const stops = [() => sandbox.stop()];
  try {
    const readingsBody = await text(`${sandbox.url}${YEAR_BY_DAY}`, AUTH);
    const locationBody = await text(`${sandbox.url}${LOCATION}`, AUTH);
    const bare = await startBareProcess({ readings: JSON.parse(readingsBody), location: JSON.parse(locationBody) });
    stops.push(bare.stop);
    const prism = await startPrism(documentServing(readingsBody), { path: YEAR_BY_DAY, headers: AUTH });
    stops.push(prism.stop);

    const cases = [
      { name: 'sandbox readings', url: `${sandbox.url}${YEAR_BY_DAY}`, headers: AUTH, pid: sandbox.pid },
      { name: 'prism readings', url: `${prism.url}${YEAR_BY_DAY}`, headers: AUTH, pid: prism.pid },
      { name: 'bare readings', url: bare.url('readings'), headers: {}, pid: bare.pid },
      { name: 'sandbox location', url: `${sandbox.url}${LOCATION}`, headers: AUTH, pid: sandbox.pid },
      { name: 'bare location', url: bare.url('location'), headers: {}, pid: bare.pid },
    ];
    const bodies = { readings: readingsBody, location: locationBody };
    for (const c of cases) {
      const body = await text(c.url, c.headers);
      const expected = bodies[c.name.split(' ')[1]];
      if (body !== expected)
        throw new Error(
          `${c.name} does not answer the sandbox's body byte for byte (${body.length} against ${expected.length} bytes)`,
        );
    }
    console.log(
      `every server answers the same bytes: ${readingsBody.length} for a year by day, ${locationBody.length} for a location; Prism ${PRISM_VERSION} serves it as the example of a one-operation document`,
    );
    console.log(
      `${rounds} rounds of 1 s per case at 10 connections, in alternating order (--quick: 5; BENCH_ROUNDS to change)`,
    );

    const r = await interleave(cases, rounds);
    const row = (name) => {
      const results = r.get(name);
      const cpu =
        results[0].cpuUs === null
          ? ''
          : `   CPU ${median(results.map((x) => x.cpuUs))
              .toFixed(0)
              .padStart(4)} µs/request`;
      return `${name.padEnd(18)} ${median(results.map((x) => x.rps))
        .toFixed(0)
        .padStart(6)} req/s   p50 ${median(results.map((x) => x.p50))
        .toFixed(1)
        .padStart(5)} ms   p99 ${median(results.map((x) => x.p99))
        .toFixed(1)
        .padStart(5)} ms (worst round ${Math.max(...results.map((x) => x.p99)).toFixed(1)})${cpu}`;
    };
    for (const c of cases) console.log(row(c.name));
    const prismRatio = ratioOver(r.get('sandbox readings'), r.get('prism readings'));
    const bareReadings = ratioOver(r.get('sandbox readings'), r.get('bare readings'));
    const locationRatio = ratioOver(r.get('sandbox location'), r.get('bare location'));
    console.log(
      `a year by day, sandbox / Prism static example:    ${formatRatio(prismRatio)}   target >= 1.00: ${prismRatio.median >= 1 ? 'met' : 'NOT met'}`,
    );
    console.log(
      `a year by day, sandbox / bare Express route:      ${formatRatio(bareReadings)}   target >= 0.50: ${bareReadings.median >= 0.5 ? 'met' : 'NOT met'}`,
    );
    console.log(
      `GET /v1/locations/{id}, sandbox / bare Express:   ${formatRatio(locationRatio)}   target >= 0.85: ${locationRatio.median >= 0.85 ? 'met' : 'NOT met'}`,
    );
    if (Number(process.versions.node.split('.')[0]) < 24) {
      console.log(
        `on Node ${process.versions.node}, the bare Express route gives each request hidden classes of its own, and the sandbox does not: expect lower ratios on Node 24 (docs/benchmarks.md, "Round six")`,
      );
    }
    const cpuPrism = cpuRatioOver(r.get('sandbox readings'), r.get('prism readings'));
    const cpuBareReadings = cpuRatioOver(r.get('sandbox readings'), r.get('bare readings'));
    const cpuBare = cpuRatioOver(r.get('sandbox location'), r.get('bare location'));
    if (cpuPrism && cpuBare && cpuBareReadings) {
      console.log(
        `CPU a request, the other server's over the sandbox's (the same ratios where the server, not the load generator, is the limit): a year by day against Prism ${formatRatio(cpuPrism)}, against the bare route ${formatRatio(cpuBareReadings)}, a location against the bare route ${formatRatio(cpuBare)}`,
      );
    }
    const p99 = r.get('sandbox readings').map((x) => x.p99);
    console.log(
      `readings p99 at 10 connections: median ${median(p99).toFixed(1)} ms over the rounds, worst ${Math.max(...p99).toFixed(1)} ms; target < 5 ms (median): ${median(p99) < 5 ? 'met' : 'NOT met'}`,
    );
  } finally {
    for (const stop of stops.reverse()) await stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
