// Load measurements: autocannon runs in a worker thread so the load generator does not share
// the server's event loop. The loader and the server share the machine's cores, so only
// ratios measured side by side mean anything.
import { once } from 'node:events';
import { Agent, createServer, get } from 'node:http';
import { performance } from 'node:perf_hooks';

import autocannon from 'autocannon';
import express from 'express';

// autocannon reads PORT from the environment and would then request the wrong URL.
delete process.env.PORT;

export const LOAD = { connections: 10, duration: Number(process.env.BENCH_SECONDS ?? 5) };

async function burst(url, headers, seconds) {
  const result = await autocannon({ url, headers, connections: LOAD.connections, duration: seconds, workers: 1 });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return result;
}

export const median = (values) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];

/**
 * Rates of two setups measured in alternating rounds: the median over neighbouring rounds of
 * a's rate over b's, and the range of those ratios (the figure least moved by the machine's
 * neighbours).
 */
export function roundRatio(ratesA, ratesB) {
  const ratios = ratesA.map((rate, i) => rate / ratesB[i]);
  return { median: median(ratios), low: Math.min(...ratios), high: Math.max(...ratios) };
}

/**
 * Requests per second and latency percentiles (ms) under load of two URLs, measured in
 * alternating one-second rounds (after a warm-up second each), so that a disturbance from
 * elsewhere on the machine hits both alike. p50: median of the rounds; p99: worst round.
 * `ratio`: see roundRatio (the load generator itself is often the limit of the bare route).
 */
export async function loadSideBySide(a, b) {
  await burst(a.url, a.headers, 1);
  await burst(b.url, b.headers, 1);
  const rounds = { a: [], b: [] };
  for (let i = 0; i < LOAD.duration; i++) {
    rounds.a.push(await burst(a.url, a.headers, 1));
    rounds.b.push(await burst(b.url, b.headers, 1));
  }
  const rate = (r) => r.requests.total / r.duration;
  const summary = (results) => ({
    rps: results.reduce((n, r) => n + r.requests.total, 0) / results.reduce((n, r) => n + r.duration, 0),
    p50: median(results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
  });
  return { a: summary(rounds.a), b: summary(rounds.b), ratio: roundRatio(rounds.a.map(rate), rounds.b.map(rate)) };
}

/**
 * Latency percentiles (ms) of one request at a time, measured by the client, after `warmUp`
 * requests that are not counted; `first` is the first request measured.
 */
export async function sequential(url, headers = {}, count = 300, warmUp = 0) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const times = [];
  for (let i = -warmUp; i < count; i++) {
    const started = performance.now();
    await new Promise((resolve, reject) => {
      get(url, { headers, agent }, (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`${url}: status ${res.statusCode}`)),
        );
      }).on('error', reject);
    });
    if (i >= 0) times.push(performance.now() - started);
  }
  agent.destroy();
  const first = times[0];
  times.sort((a, b) => a - b);
  return { first, p50: times[Math.floor(count * 0.5)], p99: times[Math.floor(count * 0.99)] };
}

/**
 * A bare Express 5 app (same settings as the sandbox: no x-powered-by, no etag) whose routes
 * answer fixed JSON bodies: the yardstick each sandbox route is compared with.
 */
export async function startBare() {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const bodies = new Map();
  app.get('/bare/:id', (req, res) => {
    res.json(bodies.get(req.params.id));
  });
  const server = createServer(app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${server.address().port}`;
  return {
    /** A bare route answering `body` (re-serialised per request, as res.json does in the sandbox). */
    route(id, body) {
      bodies.set(id, body);
      return `${base}/bare/${id}`;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Fetches a sandbox URL once and returns its JSON body. */
export async function fetchJson(url, headers = {}) {
  const res = await fetch(url, { headers });
  if (res.status !== 200) throw new Error(`${url}: status ${res.status} ${await res.text()}`);
  return res.json();
}

/**
 * Measures a sandbox route next to a bare route answering the same body: the row of the table.
 * The cold first request is timed before anything else touches the route.
 */
export async function compareWithBare({ bare, name, url, headers = {} }) {
  const cold = await sequential(url, headers, 1);
  const body = await fetchJson(url, headers);
  const bareUrl = bare.route(String(Math.random()).slice(2), body);
  const seq = await sequential(url, headers, 300, 200);
  const bareSeq = await sequential(bareUrl, {}, 300, 200);
  const { a: route, b: yardstick, ratio } = await loadSideBySide({ url, headers }, { url: bareUrl, headers: {} });
  return {
    name,
    bytes: JSON.stringify(body).length,
    first: cold.first,
    seqP50: seq.p50,
    seqP99: seq.p99,
    bareSeqP50: bareSeq.p50,
    rps: route.rps,
    p50: route.p50,
    p99: route.p99,
    bareRps: yardstick.rps,
    bareP50: yardstick.p50,
    ratio: ratio.median,
    ratioLow: ratio.low,
    ratioHigh: ratio.high,
  };
}

const COLUMNS = [
  ['case', (r) => r.name, 'l'],
  ['bytes', (r) => String(r.bytes)],
  ['req/s', (r) => r.rps.toFixed(0)],
  ['p50 ms', (r) => r.p50.toFixed(1)],
  ['p99 ms', (r) => r.p99.toFixed(1)],
  ['bare req/s', (r) => r.bareRps.toFixed(0)],
  ['bare p50', (r) => r.bareP50.toFixed(1)],
  ['ratio', (r) => r.ratio.toFixed(2)],
  ['rounds', (r) => `${r.ratioLow.toFixed(2)}-${r.ratioHigh.toFixed(2)}`],
  ['1-conn p50', (r) => r.seqP50.toFixed(2)],
  ['1-conn p99', (r) => r.seqP99.toFixed(2)],
  ['bare 1-conn p50', (r) => r.bareSeqP50.toFixed(2)],
  ['first (cold) ms', (r) => r.first.toFixed(1)],
];

export function printTable(rows) {
  const cells = [COLUMNS.map(([title]) => title), ...rows.map((r) => COLUMNS.map(([, value]) => value(r)))];
  const widths = COLUMNS.map((_, i) => Math.max(...cells.map((row) => row[i].length)));
  for (const [n, row] of cells.entries()) {
    console.log(
      row.map((cell, i) => (COLUMNS[i][2] === 'l' ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  '),
    );
    if (n === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
}
