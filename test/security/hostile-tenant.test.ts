import { fileURLToPath } from 'node:url';

import { ABUSES, BRIEF, hostileTenant } from '../../bench/hostile.js';

/**
 * The hostile-tenant bench (bench/hostile.js), briefly: one account runs every abuse against a
 * hosted sandbox in a child process (the V8 flags of `npm start`), while a careful partner runs
 * examples/readiness/careful.mjs through `water-sandbox listen` on an account of its own. The
 * partner sees no failed request and every required check passes; the process stays up. (Its
 * latency is a bench figure: `npm run bench -- --only hostile`.)
 */

const here = (path: string): string => fileURLToPath(new URL(path, import.meta.url));
const SOURCES = { nodeArgs: ['--import', here('../store/crash/register-ts.mjs')], main: here('../../src/main.ts') };

it('a careful partner is untouched while one account runs every abuse, and the process stays up', async () => {
  const figures = await hostileTenant({ durationMs: 3000, scale: BRIEF, entry: SOURCES });
  expect(figures.careful.failed).toEqual([]);
  expect(figures.careful.runs.map((r) => ({ code: r.code, ready: r.ready, notPassed: r.notPassed }))).toEqual(figures.careful.runs.map(() => ({ code: 0, ready: true, notPassed: [] })));
  expect(figures.careful.requests).toBeGreaterThan(20);
  expect(figures.process).toMatchObject({ up: true, health: 200, crash: null });
  // Every abuse ran, and the protections it meets answered it.
  for (const name of ABUSES) expect([name, figures.abuses[name]!.sent > 0]).toEqual([name, true]);
  expect(figures.abuses['oversized-bodies']!.statuses['413']).toBeGreaterThan(0);
  expect(figures.abuses['slow-headers']!.statuses['408']).toBeGreaterThan(0);
  expect(figures.abuses['accounts']!.statuses['429']).toBeGreaterThan(0);
}, 150_000);
