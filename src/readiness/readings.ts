import { present } from '../core/errors.js';
import {
  elapsedMs,
  EVIDENCE_KEPT,
  keep,
  requestEvidence,
  seconds,
  type Evidence,
  type Moment,
  type Observed,
  type Verdict,
} from './model.js';
import { addPage, missingPages, pageSet, type PageSet } from './page-set.js';

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

/**
 * A walk through the pages of one answer. Its pages share the query but the page, and the
 * endTime too when that is the time of each request: the official Node client sends
 * endTime = now on every call, so no two of its pages share a query, yet they are one walk.
 */
interface PageRun {
  /** The query but its page and endTime. */
  key: string;
  /** The endTime of page 1 (ms); null when it was left out (the account's now). */
  endMs: number | null;
  /** Whether page 1's endTime was its request's time (or left out): later pages whose endTime is theirs belong to the walk. */
  endIsNow: boolean;
  /** Whether a later page came with another endTime than page 1's. */
  endMoved: boolean;
  start: Moment;
  pageCount: number;
  pages: PageSet;
  first: Evidence;
}

/** A page other than the first, asked for while no walk of its query was open (page 1's answer may come after it). */
interface EarlyPage {
  key: string;
  endMs: number | null;
  endIsNow: boolean;
  page: number;
  at: Moment;
}

export interface ReadingsState {
  pagination: {
    open: PageRun[];
    early: EarlyPage[];
    passed: Evidence[] | null;
    failed: Evidence[];
    failureCount: number;
  };
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
/** Pages asked for before their walk's first answer, kept for the walk that may follow; the oldest is let go. */
const EARLY_PAGES = 50;
/**
 * An endTime this close to its request's arrival (on the process clock or the account's) is
 * "now": the client's clock and the sandbox's may differ by as much.
 */
export const END_IS_NOW_MS = 5 * 60_000;
/** Locations and calls polled; more are not followed. */
const POLL_SERIES = 50;

export function initialReadings(): ReadingsState {
  return {
    pagination: { open: [], early: [], passed: null, failed: [], failureCount: 0 },
    grouping: { passed: null, failed: [], failureCount: 0 },
    polling: { series: {}, failed: [], failureCount: 0 },
  };
}

function pageKey(path: string, query: Readonly<Record<string, unknown>>): string {
  const rest = Object.keys(query)
    .filter((name) => name !== 'page' && name !== 'endTime')
    .sort()
    .map((name) => `${name}=${JSON.stringify(query[name])}`);
  return `${path}?${rest.join('&')}`;
}

/** Whether a request's endTime is the time it was sent: left out (the account's now), or within END_IS_NOW_MS of its arrival. */
function endIsNow(endMs: number | null, seen: Observed): boolean {
  return (
    endMs === null ||
    Math.min(Math.abs(endMs - seen.start.atMs), Math.abs(endMs - seen.start.accountMs)) <= END_IS_NOW_MS
  );
}

/** Whether a page with this endTime belongs to the walk: the same endTime, or the time of its own request in a walk whose page 1 did the same. */
const sameWalk = (run: { endMs: number | null; endIsNow: boolean }, endMs: number | null, isNow: boolean): boolean =>
  endMs === run.endMs || (run.endIsNow && isNow);

function describeMissing(run: PageRun): string {
  const { count, first } = missingPages(run.pages, run.pageCount, 6);
  const shown = count > 6 ? `${first.slice(0, 5).join(', ')} and ${count - 5} more` : first.join(', ');
  return `pageCount ${run.pageCount}; page${count === 1 ? '' : 's'} ${shown} not requested within ${seconds(PAGINATION_WINDOW_MS)}`;
}

function closeRun(state: ReadingsState['pagination'], run: PageRun): void {
  state.failureCount++;
  keep(state.failed, { ...run.first, detail: describeMissing(run) });
}

/** What the last page's evidence says of the walk: how long it took, and the advice when its endTime moved with each request. */
function walkDone(run: PageRun, seen: Observed): string {
  const took = `the last of ${run.pageCount} pages, ${seconds(elapsedMs(run.start, seen.end))} after the first answer${run.pages.approximate ? ' (pages asked in so scattered an order that the smallest gaps were counted as asked)' : ''}`;
  if (run.endMs !== null && !run.endMoved) return took;
  const how =
    run.endMs === null
      ? 'endTime was left out, so each page ended at the time of its request'
      : 'endTime was the time of each request';
  return `${took}; ${how}: pin endTime to one instant for every page of a walk, since a new hour starting during the walk shifts the pages`;
}

function foldPagination(
  state: ReadingsState['pagination'],
  seen: Observed,
  page: number,
  pageCount: number,
  endMs: number | null,
): void {
  // Walks past their window close, oldest first, the list compacted in place: every readings answer is folded.
  let open = 0;
  for (const run of state.open) {
    if (elapsedMs(run.start, seen.start) > PAGINATION_WINDOW_MS) closeRun(state, run);
    else state.open[open++] = run;
  }
  state.open.length = open;
  const key = pageKey(seen.entry.path, seen.entry.query);
  const isNow = endIsNow(endMs, seen);
  const run = state.open.find((r) => r.key === key && sameWalk(r, endMs, isNow));
  if (run) {
    if (page >= 1 && page <= run.pageCount) addPage(run.pages, page);
    if (endMs !== run.endMs) run.endMoved = true;
    if (missingPages(run.pages, run.pageCount, 0).count === 0) {
      state.open.splice(state.open.indexOf(run), 1);
      state.passed ??= [run.first, requestEvidence(seen, walkDone(run, seen))];
    }
    return;
  }
  if (page !== 1) {
    // Perhaps a page fetched alongside page 1, whose answer comes later: kept for that walk.
    if (page > 1 && state.early.length >= EARLY_PAGES) state.early.shift();
    if (page > 1) state.early.push({ key, endMs, endIsNow: isNow, page, at: seen.start });
    return;
  }
  // A walk through the pages starts at page 1; a page asked for again later is not a new walk.
  if (pageCount <= 1) return;
  if (state.open.length >= OPEN_RUNS) state.open.shift();
  const opened: PageRun = {
    key,
    endMs,
    endIsNow: isNow,
    endMoved: false,
    start: seen.end,
    pageCount,
    pages: pageSet(1),
    first: requestEvidence(seen, `answered page 1 of ${pageCount}`),
  };
  const before = state.early.filter(
    (e) => e.key === key && sameWalk(opened, e.endMs, e.endIsNow) && elapsedMs(e.at, seen.end) <= PAGINATION_WINDOW_MS,
  );
  for (const e of before) {
    if (e.page <= pageCount) addPage(opened.pages, e.page);
    if (e.endMs !== endMs) opened.endMoved = true;
  }
  state.early = state.early.filter((e) => !before.includes(e));
  if (missingPages(opened.pages, pageCount, 0).count === 0)
    state.passed ??= [opened.first, requestEvidence(seen, walkDone(opened, seen))];
  else state.open.push(opened);
}

function foldGrouping(
  state: ReadingsState['grouping'],
  seen: Observed,
  groupBy: string,
  fromMs: number,
  toMs: number,
): void {
  const spanMs = toMs - fromMs;
  if (groupBy === 'hour' && spanMs > HOURLY_RANGE_LIMIT_MS) {
    state.failureCount++;
    keep(state.failed, requestEvidence(seen, `hourly readings over ${Math.round(spanMs / 86_400_000)} days`));
    return;
  }
  state.passed ??= requestEvidence(
    seen,
    `readings by ${groupBy} over ${Math.max(1, Math.round(spanMs / 86_400_000))} day(s)`,
  );
}

function foldPolling(state: ReadingsState['polling'], seen: Observed, key: string): void {
  const evidence = requestEvidence(seen, 'a poll of the readings');
  let series = state.series[key];
  if (!series) {
    if (Object.keys(state.series).length >= POLL_SERIES) return;
    series = {
      first: { at: seen.end, evidence },
      last: { at: seen.end, evidence },
      count: 0,
      recent: [],
      failed: false,
    };
    state.series[key] = series;
  }
  series.count++;
  series.last = { at: seen.end, evidence };
  let recent = 0;
  for (const poll of series.recent)
    if (elapsedMs(poll.at, seen.end) < POLLING_WINDOW_MS) series.recent[recent++] = poll;
  series.recent.length = recent;
  series.recent.push({ at: seen.end, evidence });
  if (series.recent.length > POLLS_PER_WINDOW && !series.failed) {
    series.failed = true;
    state.failureCount++;
    const first = present(series.recent[0], 'the first poll of the window');
    keep(state.failed, {
      ...evidence,
      detail: `poll ${series.recent.length} of these readings within ${seconds(elapsedMs(first.at, seen.end))} (the first at ${first.evidence.time}): more than once a minute`,
    });
  }
  // Only the polls a window can still hold are kept.
  if (series.recent.length > POLLS_PER_WINDOW + 1) series.recent.shift();
}

export function foldReadings(state: ReadingsState, seen: Observed): void {
  const facts = seen.entry.facts?.readings;
  if (!facts || seen.entry.status !== 200) return;
  if (facts.call === 'summary') {
    foldPolling(state.polling, seen, `${facts.locationId} summary`);
    return;
  }
  const page = facts.page ?? 1;
  if (page <= 1) foldPolling(state.polling, seen, `${facts.locationId} usage`);
  if (facts.pageCount !== undefined) foldPagination(state.pagination, seen, page, facts.pageCount, facts.toMs ?? null);
  if (facts.groupBy !== undefined && facts.fromMs !== undefined)
    foldGrouping(state.grouping, seen, facts.groupBy, facts.fromMs, facts.toMs ?? seen.end.accountMs);
}

export function paginationVerdict(state: ReadingsState, now: Moment): Verdict {
  const { pagination } = state;
  const lapsed = pagination.open.filter((run) => elapsedMs(run.start, now) > PAGINATION_WINDOW_MS);
  const failed = [...pagination.failed, ...lapsed.map((run) => ({ ...run.first, detail: describeMissing(run) }))];
  if (failed.length > 0)
    return {
      status: 'failed',
      evidence: failed.slice(0, EVIDENCE_KEPT),
      more: pagination.failureCount + lapsed.length - Math.min(failed.length, EVIDENCE_KEPT),
    };
  if (pagination.passed) return { status: 'passed', evidence: pagination.passed };
  return {
    status: 'pending',
    evidence: pagination.open.slice(0, EVIDENCE_KEPT).map((run) => {
      const { count } = missingPages(run.pages, run.pageCount, 0);
      return {
        ...run.first,
        detail: `${run.first.detail}; ${run.pageCount - count} of ${run.pageCount} pages requested so far, the rest awaited for ${seconds(PAGINATION_WINDOW_MS)} after this answer`,
      };
    }),
  };
}

export function groupingVerdict(state: ReadingsState): Verdict {
  const { grouping } = state;
  if (grouping.failed.length > 0)
    return { status: 'failed', evidence: grouping.failed, more: grouping.failureCount - grouping.failed.length };
  if (grouping.passed) return { status: 'passed', evidence: [grouping.passed] };
  return { status: 'pending', evidence: [] };
}

export function pollingVerdict(state: ReadingsState): Verdict {
  const { polling } = state;
  if (polling.failed.length > 0)
    return { status: 'failed', evidence: polling.failed, more: polling.failureCount - polling.failed.length };
  const shown = Object.values(polling.series).find(
    (series) => elapsedMs(series.first.at, series.last.at) >= POLLING_WINDOW_MS,
  );
  if (shown) {
    const spanMs = elapsedMs(shown.first.at, shown.last.at);
    const every = seconds(Math.round(spanMs / Math.max(1, shown.count - 1)));
    return {
      status: 'passed',
      evidence: [
        shown.first.evidence,
        {
          ...shown.last.evidence,
          detail: `poll ${shown.count} over ${Math.round(spanMs / 60_000)} minutes: one every ${every} on average`,
        },
      ],
    };
  }
  return { status: 'pending', evidence: [] };
}
