// What the request log line, the request journal and the readiness evidence cost each GET route
// of /v1: four sandboxes built from dist/ the same way (bench/lib/variant-server.js, the start
// flags, a lowdb DATA_DIR, each in its own process), one with every feature (the request log at
// LOG_LEVEL=info included), one without the request log line, one without the readiness evidence
// (the journal kept), one without the journal (and so without the evidence folded from it),
// measured in alternating rounds of one second at 10 connections. A ratio is the rate with the
// feature over the rate without it: 0.90 means the feature costs a tenth of the route's speed.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { START_FLAGS } from './lib/child.js';
import { median } from './lib/measure.js';
import { DEMO_API_KEY } from './lib/sandbox.js';
import { startListening } from './lib/static-mocks.js';
import { interleave, LOCATION, ratioOver, roundsOf, YEAR_BY_DAY } from './static.js';

export const title = 'the price of the request log line, the journal and the readiness evidence, per /v1 route';

const AUTH = { authorization: `Bearer ${DEMO_API_KEY}` };
const LOCATION_ID = LOCATION.split('/').at(-1);
const ROUTES = [
  ['GET /v1/locations', '/v1/locations'],
  ['GET /v1/locations/{id}', LOCATION],
  ['GET /v1/locations/{id}/subscriptions', `/v1/locations/${LOCATION_ID}/subscriptions`],
  ['GET /v1/subscriptions', '/v1/subscriptions'],
  ['GET .../readings/water-usage (a year by day)', YEAR_BY_DAY],
  ['GET .../readings/water-usage/summary', `/v1/locations/${LOCATION_ID}/readings/water-usage/summary`],
];
const VARIANTS = [
  ['every feature', {}],
  ['no request log', { requestLog: false }],
  ['no readiness evidence', { readinessEvidence: false }],
  ['no journal', { journal: false }],
];

export async function run({ args }) {
  const rounds = Math.max(3, Math.round(roundsOf(args) / 2));
  const dirs = [];
  const servers = [];
  try {
    for (const [name, features] of VARIANTS) {
      const dir = await mkdtemp(join(tmpdir(), 'water-sandbox-bench-features-'));
      dirs.push(dir);
      servers.push({
        name,
        ...(await startListening('./variant-server.js', [JSON.stringify(features), dir], START_FLAGS)),
      });
    }
    console.log(
      `${rounds} rounds of 1 s per route and sandbox (--quick: 3); ratio: rate with the feature / rate without it, median over the rounds (range)`,
    );
    const fmt = (r) => `${r.median.toFixed(2)} (${r.low.toFixed(2)}-${r.high.toFixed(2)})`;
    const header = [
      'route',
      'req/s',
      'request log',
      'readiness evidence',
      'journal (without evidence)',
      'evidence and journal',
    ];
    const rows = [];
    for (const [route, path] of ROUTES) {
      const cases = servers.map((s) => ({ name: s.name, url: `${s.url}${path}`, headers: AUTH }));
      const r = await interleave(cases, rounds);
      const [all, noLog, noEvidence, noJournal] = VARIANTS.map(([name]) => r.get(name));
      rows.push([
        route,
        median(all.map((x) => x.rps)).toFixed(0),
        fmt(ratioOver(all, noLog)),
        fmt(ratioOver(all, noEvidence)),
        fmt(ratioOver(noEvidence, noJournal)),
        fmt(ratioOver(all, noJournal)),
      ]);
    }
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
    for (const row of [header, ...rows])
      console.log(row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  '));
  } finally {
    for (const s of servers) await s.stop();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }
}
