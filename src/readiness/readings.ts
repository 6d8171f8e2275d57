import { elapsedMs, EVIDENCE_KEPT, keep, requestEvidence, seconds, type Evidence, type Moment, type Observed, type Verdict } from './model.js';

/**
 * readings.pagination, readings.grouping and polling.interval, folded from the readings answers
 * the journal kept (their range, grouping, page and pageCount, noted by the readings routes).
 */

/** The other pages of a multi-page answer must be asked for within this (docs/readiness.md#readingspagination). */
export const PAGINATION_WINDOW_MS = 60_000;
/** Hourly readings over more than this are a waste of pages: group by day or more. */
export const HOURLY_RANGE_LIMIT_MS = 31 * 24 * 3_600_000;
/** Polling is judged over windows of 10 minutes, at most once a minute on average. */
export const POLLING_WINDOW_MS = 10 * 60_000;
/** Requests a window of 10 minutes may hold at once a minute, counting both ends. */
export const POLLS_PER_WINDOW = 11;

interface PageRun {
  /** The query but its page: the pages of one answer share it. */
  key: string;
  start: Moment;
  pageCount: number;
  pages: number[];
  first: Evidence;
}

export interface ReadingsState {
  pagination: { open: PageRun[]; passed: Evidence[] | null; failed: Evidence[]; failureCount: number };
  grouping: { passed: Evidence | null; failed: Evidence[]; failureCount: number };
  polling: { series: Record<string, PollSeries>; failed: Evidence[]; failureCount: number };
}

interface PollSeries {
  first: { at: Moment; evidence: Evidence };
  last: { at: Moment; evidence: Evidence };
  count: number;
  /** The polls of the last 10 minutes. */
  recent: { at: Moment; evidence: Evidence }[];
  failed: boolean;
}

/** Multi-page answers followed at once; more are unusual, and the oldest is let go. */
const OPEN_RUNS = 20;
/** Locations and calls polled; more are not followed. */
const POLL_SERIES = 50;

export function initialReadings(): ReadingsState {
  return { pagination: { open: [], passed: null, failed: [], failureCount: 0 }, grouping: { passed: null, failed: [], failureCount: 0 }, polling: { series: {}, failed: [], failureCount: 0 } };
}

function pageKey(path: string, query: Readonly<Record<string, unknown>>): string {
  const rest = Object.keys(query)
    .filter((name) => name !== 'page')
    .sort()
    .map((name) => `${name}=${JSON.stringify(query[name])}`);
  return `${path}?${rest.join('&')}`;
}

const missingPages = (run: PageRun): number[] => Array.from({ length: run.pageCount }, (_, i) => i + 1).filter((page) => !run.pages.includes(page));

function describeMissing(run: PageRun): string {
  const missing = missingPages(run);
  const shown = missing.length > 6 ? `${missing.slice(0, 5).join(', ')} and ${missing.length - 5} more` : missing.join(', ');
  return `pageCount ${run.pageCount}; page${missing.length === 1 ? '' : 's'} ${shown} not requested within ${seconds(PAGINATION_WINDOW_MS)}`;
}

function closeRun(state: ReadingsState['pagination'], run: PageRun): void {
  state.failureCount++;
  keep(state.failed, { ...run.first, detail: describeMissing(run) });
}

function foldPagination(state: ReadingsState['pagination'], seen: Observed, page: number, pageCount: number): void {
  for (const run of [...state.open]) {
    if (elapsedMs(run.start, seen.start) > PAGINATION_WINDOW_MS) {
      state.open.splice(state.open.indexOf(run), 1);
      closeRun(state, run);
    }
  }
  const key = pageKey(seen.entry.path, seen.entry.query);
  const run = state.open.find((r) => r.key === key);
  if (run) {
    if (!run.pages.includes(page) && page >= 1 && page <= run.pageCount) run.pages.push(page);
    if (missingPages(run).length === 0) {
      state.open.splice(state.open.indexOf(run), 1);
      state.passed ??= [run.first, requestEvidence(seen, `the last of ${run.pageCount} pages, ${seconds(elapsedMs(run.start, seen.end))} after the first answer`)];
    }
    return;
  }
  // A walk through the pages starts at page 1; a page asked for again later is not a new walk.
  if (pageCount <= 1 || page !== 1) return;
  if (state.open.length >= OPEN_RUNS) state.open.shift();
  state.open.push({ key, start: seen.end, pageCount, pages: [1], first: requestEvidence(seen, `answered page 1 of ${pageCount}`) });
}

function foldGrouping(state: ReadingsState['grouping'], seen: Observed, groupBy: string, fromMs: number, toMs: number): void {
  const spanMs = toMs - fromMs;
  if (groupBy === 'hour' && spanMs > HOURLY_RANGE_LIMIT_MS) {
    state.failureCount++;
    keep(state.failed, requestEvidence(seen, `hourly readings over ${Math.round(spanMs / 86_400_000)} days`));
    return;
  }
  state.passed ??= requestEvidence(seen, `readings by ${groupBy} over ${Math.max(1, Math.round(spanMs / 86_400_000))} day(s)`);
}

function foldPolling(state: ReadingsState['polling'], seen: Observed, key: string): void {
  const evidence = requestEvidence(seen, 'a poll of the readings');
  let series = state.series[key];
  if (!series) {
    if (Object.keys(state.series).length >= POLL_SERIES) return;
    series = { first: { at: seen.end, evidence }, last: { at: seen.end, evidence }, count: 0, recent: [], failed: false };
    state.series[key] = series;
  }
  series.count++;
  series.last = { at: seen.end, evidence };
  series.recent = series.recent.filter((poll) => elapsedMs(poll.at, seen.end) < POLLING_WINDOW_MS);
  series.recent.push({ at: seen.end, evidence });
  if (series.recent.length > POLLS_PER_WINDOW && !series.failed) {
    series.failed = true;
    state.failureCount++;
    const first = series.recent[0]!;
    keep(state.failed, { ...evidence, detail: `poll ${series.recent.length} of these readings within ${seconds(elapsedMs(first.at, seen.end))} (the first at ${first.evidence.time}): more than once a minute` });
  }
  // Only the polls a window can still hold are kept.
  if (series.recent.length > POLLS_PER_WINDOW + 1) series.recent.shift();
}

export function foldReadings(state: ReadingsState, seen: Observed): void {
  const facts = seen.entry.facts?.readings;
  if (!facts || seen.entry.status !== 200) return;
  if (facts.call === 'summary') return foldPolling(state.polling, seen, `${facts.locationId} summary`);
  const page = facts.page ?? 1;
  if (page <= 1) foldPolling(state.polling, seen, `${facts.locationId} usage`);
  if (facts.pageCount !== undefined) foldPagination(state.pagination, seen, page, facts.pageCount);
  if (facts.groupBy !== undefined && facts.fromMs !== undefined) foldGrouping(state.grouping, seen, facts.groupBy, facts.fromMs, facts.toMs ?? seen.end.accountMs);
}

export function paginationVerdict(state: ReadingsState, now: Moment): Verdict {
  const { pagination } = state;
  const lapsed = pagination.open.filter((run) => elapsedMs(run.start, now) > PAGINATION_WINDOW_MS);
  const failed = [...pagination.failed, ...lapsed.map((run) => ({ ...run.first, detail: describeMissing(run) }))];
  if (failed.length > 0) return { status: 'failed', evidence: failed.slice(0, EVIDENCE_KEPT), more: pagination.failureCount + lapsed.length - Math.min(failed.length, EVIDENCE_KEPT) };
  if (pagination.passed) return { status: 'passed', evidence: pagination.passed };
  return { status: 'pending', evidence: pagination.open.map((run) => ({ ...run.first, detail: `${run.first.detail}; waiting for the other pages` })).slice(0, EVIDENCE_KEPT) };
}

export function groupingVerdict(state: ReadingsState): Verdict {
  const { grouping } = state;
  if (grouping.failed.length > 0) return { status: 'failed', evidence: grouping.failed, more: grouping.failureCount - grouping.failed.length };
  if (grouping.passed) return { status: 'passed', evidence: [grouping.passed] };
  return { status: 'pending', evidence: [] };
}

export function pollingVerdict(state: ReadingsState): Verdict {
  const { polling } = state;
  if (polling.failed.length > 0) return { status: 'failed', evidence: polling.failed, more: polling.failureCount - polling.failed.length };
  const shown = Object.values(polling.series).find((series) => elapsedMs(series.first.at, series.last.at) >= POLLING_WINDOW_MS);
  if (shown) {
    const spanMs = elapsedMs(shown.first.at, shown.last.at);
    const every = seconds(Math.round(spanMs / Math.max(1, shown.count - 1)));
    return { status: 'passed', evidence: [shown.first.evidence, { ...shown.last.evidence, detail: `poll ${shown.count} over ${Math.round(spanMs / 60_000)} minutes: one every ${every} on average` }] };
  }
  return { status: 'pending', evidence: [] };
}
