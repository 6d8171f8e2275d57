import { setImmediate as nextTurn } from 'node:timers/promises';

import type { AccountDoc, DeepReadonly, JournalEntry } from '../store/data.js';
import { CATALOG, GUIDE } from './catalog.js';
import { deliveryVerdict, initialLedger, type DeliveryLedger, type Judged } from './deliveries.js';
import { foldErrors, initialErrors, rateLimitVerdict, serverErrorsVerdict, type ErrorsState } from './errors.js';
import {
  CHECK_IDS,
  EVIDENCE_KEPT,
  isIntegrationTraffic,
  observe,
  type CheckId,
  type CheckStatus,
  type Evidence,
  type Moment,
  type Verdict,
} from './model.js';
import { foldOAuth, initialOAuth, refreshVerdict, tokenExchangeVerdict, type OAuthState } from './oauth.js';
import {
  foldReadings,
  groupingVerdict,
  initialReadings,
  paginationVerdict,
  pollingVerdict,
  type ReadingsState,
} from './readings.js';
import {
  foldSubscriptions,
  initialSubscriptions,
  subscriptionsVerdict,
  type SubscriptionsState,
} from './subscriptions.js';

/** Bumped when the shape of FoldState changes: a digest of another version is folded afresh. */
export const FOLD_VERSION = 3;

/** Everything the checks have concluded in a window, as stored in the account's readiness digest. */
export interface FoldState {
  version: typeof FOLD_VERSION;
  oauth: OAuthState;
  readings: ReadingsState;
  errors: ErrorsState;
  subscriptions: SubscriptionsState;
  deliveries: DeliveryLedger;
}

/** The state of a window opening at `sinceMs` (process clock). */
export function initialFoldState(sinceMs: number): FoldState {
  return {
    version: FOLD_VERSION,
    oauth: initialOAuth(),
    readings: initialReadings(),
    errors: initialErrors(),
    subscriptions: initialSubscriptions(),
    deliveries: initialLedger(sinceMs),
  };
}

export function isFoldState(value: unknown): value is FoldState {
  return typeof value === 'object' && value !== null && (value as { version?: unknown }).version === FOLD_VERSION;
}

/** Folds journal entries, oldest first, into the state (in place). Only the integration's own traffic counts. */
function foldEntries(state: FoldState, entries: readonly DeepReadonly<JournalEntry>[]): void {
  for (const entry of entries) {
    if (!isIntegrationTraffic(entry)) continue;
    const seen = observe(entry);
    foldOAuth(state.oauth, seen);
    foldReadings(state.readings, seen);
    foldErrors(state.errors, seen);
    foldSubscriptions(state.subscriptions, seen);
  }
}

/**
 * Entries folded in one turn of the event loop. A fold of an account's 150 new entries in one go
 * (foldInterval) held every request in flight for most of a millisecond, once every 150 requests:
 * most of what the readings p99 had above a bare route's (docs/benchmarks.md).
 */
export const FOLD_SLICE = 25;

/** foldEntries a slice at a time, letting the requests waiting in the event loop run between slices. */
export async function foldInSlices(state: FoldState, entries: readonly DeepReadonly<JournalEntry>[]): Promise<void> {
  for (let start = 0; start < entries.length; start += FOLD_SLICE) {
    if (start > 0) await nextTurn();
    foldEntries(state, entries.slice(start, start + FOLD_SLICE));
  }
}

export interface ReadinessCheck {
  id: CheckId;
  title: string;
  required: boolean;
  status: CheckStatus;
  evidence: Evidence[];
  /** What to change (failed) or how to show it (pending); null once passed or not applicable. */
  fix: string | null;
  docs: string;
}

export interface ReadinessReport {
  accountId: string;
  since: string;
  ready: boolean;
  summary: { passed: number; failed: number; pending: number; notApplicable: number };
  checks: ReadinessCheck[];
}

export interface ReportInput {
  accountId: string;
  since: string;
  state: FoldState;
  /** The judgements of the deliveries that have not settled into the state yet. */
  live: readonly Judged[];
  doc: DeepReadonly<AccountDoc>;
  now: Moment;
  /** Whether an endpoint is one of the sandbox's relay endpoints (`water-sandbox listen`). */
  isRelay: (endpoint: string) => boolean;
}

function httpsVerdict(doc: DeepReadonly<AccountDoc>, isRelay: (endpoint: string) => boolean): Verdict {
  const endpoints = doc.subscriptions.filter((s) => !isRelay(s.endpoint));
  if (endpoints.length === 0) return { status: 'pending', evidence: [] };
  const plain = endpoints.filter((s) => !s.endpoint.startsWith('https:'));
  const evidence = (list: typeof endpoints, detail: (endpoint: string) => string): Evidence[] =>
    list
      .slice(0, EVIDENCE_KEPT)
      .map((s) => ({ time: s.createdAt, subscriptionId: s.subscriptionId, detail: detail(s.endpoint) }));
  if (plain.length > 0)
    return {
      status: 'failed',
      evidence: evidence(plain, (e) => `endpoint ${e} is not https`),
      more: Math.max(0, plain.length - EVIDENCE_KEPT),
    };
  return { status: 'passed', evidence: evidence(endpoints, (e) => `endpoint ${e} uses https`) };
}

function verdictOf(id: CheckId, input: ReportInput): Verdict {
  const { state } = input;
  switch (id) {
    case 'oauth.token-exchange':
      return tokenExchangeVerdict(state.oauth);
    case 'oauth.refresh':
      return refreshVerdict(state.oauth);
    case 'readings.pagination':
      return paginationVerdict(state.readings, input.now);
    case 'readings.grouping':
      return groupingVerdict(state.readings);
    case 'polling.interval':
      return pollingVerdict(state.readings);
    case 'errors.rate-limit':
      return rateLimitVerdict(state.errors);
    case 'errors.server-errors':
      return serverErrorsVerdict(state.errors);
    case 'subscriptions.confirmed':
      return subscriptionsVerdict(state.subscriptions, input.doc, input.now);
    case 'webhooks.https':
      return httpsVerdict(input.doc, input.isRelay);
    default:
      return deliveryVerdict(id, state.deliveries, input.live);
  }
}

/** The readiness report (docs/readiness.md) from what the window has shown. */
export function buildReport(input: ReportInput): ReadinessReport {
  const checks = CHECK_IDS.map((id): ReadinessCheck => {
    const text = CATALOG[id];
    const verdict = verdictOf(id, input);
    const evidence = verdict.evidence.map((e) => ({ ...e }));
    const last = evidence.at(-1);
    if (last && verdict.more) last.detail = `${last.detail} (and ${verdict.more} more like this)`;
    return {
      id,
      title: text.title,
      required: text.required,
      status: verdict.status,
      evidence,
      fix: verdict.status === 'failed' ? text.fix : verdict.status === 'pending' ? text.howToShow : null,
      docs: `${GUIDE}#${text.anchor}`,
    };
  });
  const count = (status: CheckStatus): number => checks.filter((c) => c.status === status).length;
  return {
    accountId: input.accountId,
    since: input.since,
    ready: checks.every((c) => !c.required || c.status === 'passed' || c.status === 'not_applicable'),
    summary: {
      passed: count('passed'),
      failed: count('failed'),
      pending: count('pending'),
      notApplicable: count('not_applicable'),
    },
    checks,
  };
}
