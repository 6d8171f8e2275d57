/**
 * The pages of one walk that were asked for, as sorted, disjoint runs of pages [first, last]:
 * a walk page by page is one run, pages fetched in parallel a few more. Adding a page and reading
 * what is missing cost at most MAX_RANGES steps however many pages the walk has, and the stored
 * state stays as small (a walk of 5,000 pages in order is one pair of numbers).
 */
import { present } from '../core/errors.js';

export interface PageSet {
  ranges: [number, number][];
  /**
   * Whether gaps were closed to keep the set within MAX_RANGES: a walk asked in more scattered
   * an order than that is counted as if the smallest gaps had been asked for too.
   */
  approximate: boolean;
}

/** Runs of pages kept at once; a client fetching pages in parallel leaves about as many gaps as it has requests in flight. */
export const MAX_RANGES = 32;

export function pageSet(...pages: number[]): PageSet {
  const set: PageSet = { ranges: [], approximate: false };
  for (const page of pages) addPage(set, page);
  return set;
}

export function hasPage(set: PageSet, page: number): boolean {
  return set.ranges.some(([first, last]) => first <= page && page <= last);
}

/** Adds a page (in place). */
export function addPage(set: PageSet, page: number): void {
  const { ranges } = set;
  // The first run that ends at or after the page before this one.
  let i = 0;
  while ((ranges[i]?.[1] ?? Infinity) < page - 1) i++;
  const at = ranges[i];
  if (at === undefined || at[0] > page + 1) ranges.splice(i, 0, [page, page]);
  else {
    at[0] = Math.min(at[0], page);
    at[1] = Math.max(at[1], page);
    // It may now touch the next run.
    const next = ranges[i + 1];
    if (next !== undefined && next[0] <= at[1] + 1) {
      at[1] = Math.max(at[1], next[1]);
      ranges.splice(i + 1, 1);
    }
  }
  if (ranges.length > MAX_RANGES) closeSmallestGap(set);
}

function closeSmallestGap(set: PageSet): void {
  const { ranges } = set;
  let smallest = 0;
  let smallestGap = Infinity;
  ranges.forEach(([, end], i) => {
    const next = ranges[i + 1];
    if (next !== undefined && next[0] - end < smallestGap) {
      smallest = i;
      smallestGap = next[0] - end;
    }
  });
  present(ranges[smallest], 'the run before the gap')[1] = present(ranges[smallest + 1], 'the run after the gap')[1];
  ranges.splice(smallest + 1, 1);
  set.approximate = true;
}

/** The pages of 1..pageCount not in the set: how many, and the first `shown` of them. */
export function missingPages(set: PageSet, pageCount: number, shown: number): { count: number; first: number[] } {
  let count = 0;
  const first: number[] = [];
  let next = 1;
  const note = (from: number, to: number): void => {
    if (to < from) return;
    count += to - from + 1;
    for (let page = from; page <= to && first.length < shown; page++) first.push(page);
  };
  for (const [from, to] of set.ranges) {
    if (from > pageCount) break;
    note(next, from - 1);
    next = Math.max(next, to + 1);
  }
  note(next, pageCount);
  return { count, first };
}
