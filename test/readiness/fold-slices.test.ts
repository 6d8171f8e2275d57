import { setImmediate } from 'node:timers';

import { FOLD_SLICE, foldInSlices, initialFoldState } from '../../src/readiness/report.js';
import type { JournalEntry } from '../../src/store/data.js';

/**
 * The report folds a journal a slice at a time, so a fold of an account's 150 new entries does
 * not hold up the requests in flight for the whole of it (the readings p99, docs/benchmarks.md).
 */

const T0 = Date.parse('2026-03-10T15:00:00Z');
const PATH = '/v1/locations/loc-1/readings/water-usage';

/** Walks of 4 pages of readings, a second apart, every tenth answer a 429 and every fifteenth a 500. */
function journal(count: number): JournalEntry[] {
  return Array.from({ length: count }, (_, i): JournalEntry => {
    const page = (i % 4) + 1;
    const atMs = T0 + i * 1000;
    const status = i % 10 === 9 ? 429 : i % 15 === 14 ? 500 : 200;
    return {
      accountId: 'acc-1',
      method: 'GET',
      path: PATH,
      query: { startTime: '2026-02-01T00:00:00Z', endTime: '2026-03-01T00:00:00Z', groupBy: 'day', page: String(page) },
      status,
      time: new Date(atMs).toISOString(),
      atMs,
      startedAtMs: atMs - 2,
      durationMs: 2,
      auth: 'api_key',
      seq: i + 1,
      facts: {
        readings: {
          locationId: 'loc-1',
          call: 'usage',
          groupBy: 'day',
          fromMs: Date.parse('2026-02-01T00:00:00Z'),
          toMs: Date.parse('2026-03-01T00:00:00Z'),
          page,
          pageCount: 4,
        },
        ...(status === 429 ? { retryAfter: 1 } : {}),
      },
    };
  });
}

const entries = journal(6 * FOLD_SLICE + 7);

it('folds to the same state as folding each entry on its own, in order (no entry lost or folded twice at a slice edge)', async () => {
  const sliced = initialFoldState(T0);
  await foldInSlices(sliced, entries);
  const oneByOne = initialFoldState(T0);
  for (const entry of entries) await foldInSlices(oneByOne, [entry]);
  expect(sliced).toEqual(oneByOne);
  // The walks were seen: the fold did fold them.
  expect(sliced.readings.pagination.passed).not.toBeNull();
  expect(sliced.errors.rateLimit.passed ?? sliced.errors.rateLimit.blocked).not.toBeNull();
});

it('lets the event loop turn between slices, once for each slice after the first', async () => {
  let turns = 0;
  let counting = true;
  const tick = (): void => {
    if (!counting) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  await foldInSlices(initialFoldState(T0), entries);
  counting = false;
  expect(turns).toBeGreaterThanOrEqual(Math.ceil(entries.length / FOLD_SLICE) - 1);
});

it('folds a journal of no more than a slice without waiting for a turn of the event loop', async () => {
  let turned = false;
  setImmediate(() => (turned = true));
  await foldInSlices(initialFoldState(T0), entries.slice(0, FOLD_SLICE));
  expect(turned).toBe(false);
});
