import { addPage, hasPage, MAX_RANGES, missingPages, pageSet } from '../../src/readiness/page-set.js';

/** The pages of a walk as runs of pages: merging, what is missing, and the bound. */

it('merges a page into the run it touches, and two runs it joins', () => {
  const set = pageSet(1, 2, 5, 7);
  expect(set.ranges).toEqual([
    [1, 2],
    [5, 5],
    [7, 7],
  ]);
  addPage(set, 6);
  expect(set.ranges).toEqual([
    [1, 2],
    [5, 7],
  ]);
  addPage(set, 3);
  addPage(set, 4);
  expect(set.ranges).toEqual([[1, 7]]);
  addPage(set, 4);
  expect(set.ranges).toEqual([[1, 7]]);
  expect([hasPage(set, 7), hasPage(set, 8)]).toEqual([true, false]);
});

it('lists what is missing of 1..pageCount: how many, and the first few', () => {
  const set = pageSet(1, 4, 5, 9);
  expect(missingPages(set, 10, 3)).toEqual({ count: 6, first: [2, 3, 6] });
  expect(missingPages(set, 5, 10)).toEqual({ count: 2, first: [2, 3] });
  expect(missingPages(pageSet(1, 2, 3), 3, 5)).toEqual({ count: 0, first: [] });
  // A page past pageCount (a later answer counted one more page) is not one that was missing.
  expect(missingPages(pageSet(1, 2, 3, 4), 3, 5)).toEqual({ count: 0, first: [] });
});

it(`keeps at most ${MAX_RANGES} runs: past that the smallest gap is closed, and the set says it is approximate`, () => {
  const set = pageSet();
  // Every other page, then one more with a gap of 3 pages: the gaps of one page are the smallest.
  for (let page = 1; page <= 2 * MAX_RANGES - 1; page += 2) addPage(set, page);
  expect(set.ranges).toHaveLength(MAX_RANGES);
  expect(set.approximate).toBe(false);
  addPage(set, 2 * MAX_RANGES + 3);
  expect(set.ranges).toHaveLength(MAX_RANGES);
  expect(set.approximate).toBe(true);
  expect(set.ranges[0]).toEqual([1, 3]);
  expect(set.ranges.at(-1)).toEqual([2 * MAX_RANGES + 3, 2 * MAX_RANGES + 3]);
});
