import { observe, type Observed } from '../../src/readiness/model.js';
import { MAX_RANGES } from '../../src/readiness/page-set.js';
import { foldReadings, initialReadings, paginationVerdict, type ReadingsState } from '../../src/readiness/readings.js';
import type { JournalEntry } from '../../src/store/data.js';

/**
 * The pagination fold over long walks, folded entry by entry as the report folds the journal:
 * each entry costs the same however many pages the walk has, and the state it keeps stays small.
 * (Before, each page rebuilt the list of the walk's pages: a walk of 5,000 one-reading pages took
 * some 10^10 steps and kept every page number in the account's digest.)
 */

const PATH = '/v1/locations/loc-1/readings/water-usage';
const T0 = Date.parse('2026-03-10T15:00:00Z');
const FROM_MS = Date.parse('2026-02-01T00:00:00Z');
const END_MS = Date.parse('2026-03-10T00:00:00Z');

/** The journal's entry of one page's answer, `atMs` after T0. */
function pageAnswer(page: number, pageCount: number, atMs: number): Observed {
  const entry: JournalEntry = {
    accountId: 'acc-1',
    method: 'GET',
    path: PATH,
    query: { startTime: '2026-02-01T00:00:00Z', endTime: '2026-03-10T00:00:00Z', perPage: '1', page: String(page) },
    status: 200,
    time: new Date(T0 + atMs).toISOString(),
    atMs: T0 + atMs,
    startedAtMs: T0 + atMs - 1,
    durationMs: 1,
    auth: 'api_key',
    facts: {
      readings: { locationId: 'loc-1', call: 'usage', groupBy: 'hour', fromMs: FROM_MS, toMs: END_MS, page, pageCount },
    },
  };
  return observe(entry);
}

/** Folds a walk's pages in the order given, 5 ms apart; returns the state and the largest it got, in characters of JSON. */
function walk(order: number[], pageCount: number): { state: ReadingsState; largest: number } {
  const state = initialReadings();
  let largest = 0;
  order.forEach((page, i) => {
    foldReadings(state, pageAnswer(page, pageCount, i * 5));
    largest = Math.max(largest, JSON.stringify(state.pagination).length);
  });
  return { state, largest };
}

const PAGES = 5000;
const inOrder = Array.from({ length: PAGES }, (_, i) => i + 1);
const now = { atMs: T0 + PAGES * 5, accountMs: T0 + PAGES * 5 };

it(`a walk of ${PAGES} one-reading pages in order finishes and passes, its state never bigger than a walk of 3 pages`, () => {
  const { state, largest } = walk(inOrder, PAGES);
  expect(paginationVerdict(state, now)).toMatchObject({
    status: 'passed',
    evidence: [
      { detail: `answered page 1 of ${PAGES}` },
      { detail: 'the last of 5000 pages, 25.0 s after the first answer' },
    ],
  });
  const small = walk([1, 2, 3], 3).largest;
  expect(largest).toBeLessThanOrEqual(small + 16);
});

it(`a walk of ${PAGES} pages fetched 8 at a time (answers in any order within each 8) passes, exactly`, () => {
  // A fixed shuffle of each batch of 8: page 1 first, as a client reads pageCount from it.
  const order = [1];
  for (let from = 2; from <= PAGES; from += 8) {
    const batch = inOrder.slice(from - 1, from + 7);
    order.push(...batch.map((_, i) => batch[(i * 5 + 3) % batch.length]!));
  }
  expect(new Set(order).size).toBe(PAGES);
  const { state, largest } = walk(order, PAGES);
  expect(paginationVerdict(state, now)).toMatchObject({
    status: 'passed',
    evidence: [{}, { detail: expect.not.stringContaining('scattered') }],
  });
  expect(largest).toBeLessThan(1500);
});

it(`a walk whose pages come in a scattered order keeps at most ${MAX_RANGES} runs of pages, and says the count is approximate`, () => {
  // Page 1, then the odd pages, then the even ones: half the walk is gaps at the turn.
  const order = [1, ...inOrder.filter((p) => p % 2 === 1 && p > 1), ...inOrder.filter((p) => p % 2 === 0)];
  const { state, largest } = walk(order, PAGES);
  expect(paginationVerdict(state, now)).toMatchObject({
    status: 'passed',
    evidence: [
      {},
      {
        detail: expect.stringContaining(
          'pages asked in so scattered an order that the smallest gaps were counted as asked',
        ),
      },
    ],
  });
  expect(largest).toBeLessThan(2000);
});

it('a walk that leaves pages out fails once its minute has passed, naming the first missing pages and counting the rest', () => {
  const { state } = walk(
    inOrder.filter((p) => p !== 17 && p < 4000),
    PAGES,
  );
  const later = { atMs: T0 + 61_000, accountMs: T0 + 61_000 };
  expect(paginationVerdict(state, later)).toMatchObject({
    status: 'failed',
    evidence: [{ detail: 'pageCount 5000; pages 17, 4000, 4001, 4002, 4003 and 997 more not requested within 60 s' }],
  });
});
