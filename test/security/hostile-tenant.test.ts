import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ABUSES, BRIEF, hostileTenant } from '../../bench/hostile.js';
import { buildServerFiles, SERVER_BUNDLE_NAME } from '../../src/tools/server-files.js';

/**
 * The hostile-tenant bench (bench/hostile.js), briefly: one account runs every abuse against a
 * hosted sandbox in a child process (the server bundle as `npm start` runs it, built here from
 * the sources, with the V8 flags of `npm start`), while a careful partner runs
 * examples/readiness/careful.mjs through `water-sandbox listen` on an account of its own. The
 * partner sees no failed request and every required check passes, its dashboard sessions and
 * stream last through the sign-in flood and the stream grab; the process stays up. (Its latency is
 * a bench figure: `npm run bench -- --only hostile`.)
 */

// Inside the package (the bundle finds its package.json, fixtures and dashboard files from there), apart from dist/.
const BUILT = fileURLToPath(new URL(`../../node_modules/.cache/water-sandbox/hostile-${process.pid}`, import.meta.url));

beforeAll(async () => {
  await buildServerFiles({ main: 'src/main.ts', healthcheck: 'src/healthcheck.ts' }, BUILT);
}, 60_000);

afterAll(async () => {
  await rm(BUILT, { recursive: true, force: true });
});

it('a careful partner is untouched while one account runs every abuse, and the process stays up', async () => {
  const figures = await hostileTenant({
    durationMs: 3000,
    scale: BRIEF,
    entry: { nodeArgs: [], main: join(BUILT, SERVER_BUNDLE_NAME) },
  });
  expect(figures.careful.failed).toEqual([]);
  expect(
    figures.careful.runs.map((r) => ({ code: r.code, ready: r.ready, notPassed: r.notPassed, problem: r.problem })),
  ).toEqual(figures.careful.runs.map(() => ({ code: 0, ready: true, notPassed: [], problem: null })));
  expect(figures.careful.requests).toBeGreaterThan(20);
  // What it held through the sign-in flood and the stream grab lasted.
  expect(figures.careful.holdings).toEqual({ sessions: 2, sessionsKept: 2, streamOpen: true, streamProblem: null });
  expect(figures.process).toMatchObject({ up: true, health: 200, crash: null });
  // Every abuse ran, and the protections it meets answered it.
  for (const name of ABUSES) expect([name, figures.abuses[name]!.sent > 0]).toEqual([name, true]);
  expect(figures.abuses['oversized-bodies']!.statuses['413']).toBeGreaterThan(0);
  expect(figures.abuses['slow-headers']!.statuses['408']).toBeGreaterThan(0);
  expect(figures.abuses['accounts']!.statuses['429']).toBeGreaterThan(0);
  expect(figures.abuses['sign-in-flood']!.statuses['303']).toBeGreaterThan(0);
  expect(figures.abuses['stream-grab']!.statuses['200']).toBeGreaterThan(0);
}, 150_000);
