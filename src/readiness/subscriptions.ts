import { present } from '../core/errors.js';
import type { AccountDoc, DeepReadonly } from '../store/data.js';
import {
  EVIDENCE_KEPT,
  keep,
  remembering,
  requestEvidence,
  type Evidence,
  type Moment,
  type Observed,
  type Verdict,
} from './model.js';

/**
 * subscriptions.confirmed: from the journal, the subscriptions the integration made in the
 * window and its confirm calls; from the account, confirmation tokens that expired unused.
 */
export interface SubscriptionsState {
  /** Subscriptions made in the window (their tokens may expire unused). */
  created: string[];
  /** The confirm call that confirmed each subscription. */
  confirmed: Record<string, Evidence>;
  /** The last confirm call refused through the client's fault, per subscription not confirmed since. */
  refused: Record<string, Evidence>;
}

const SUBSCRIPTIONS_KEPT = 50;
// The Python client puts a slash before the query: /confirm/?confirmationToken=...
const CONFIRM_PATH = /^\/v1\/subscriptions\/([^/]+)\/confirm\/?$/;

export function initialSubscriptions(): SubscriptionsState {
  return { created: [], confirmed: {}, refused: {} };
}

export function foldSubscriptions(state: SubscriptionsState, seen: Observed): void {
  const { entry } = seen;
  const created = entry.facts?.subscriptionId;
  if (entry.method === 'POST' && created !== undefined && entry.status === 200) {
    if (!state.created.includes(created)) keep(state.created, created, SUBSCRIPTIONS_KEPT);
    return;
  }
  const confirm = entry.method === 'GET' ? CONFIRM_PATH.exec(entry.path) : null;
  if (!confirm) return;
  const subscriptionId = decodeURIComponent(present(confirm[1], 'the subscription id of a confirm path'));
  if (entry.status === 200) {
    state.confirmed = remembering(
      state.confirmed,
      subscriptionId,
      requestEvidence(seen, `confirmed subscription ${subscriptionId}`),
      SUBSCRIPTIONS_KEPT,
    );
    const { [subscriptionId]: _confirmedSince, ...refused } = state.refused;
    state.refused = refused;
  } else if (
    entry.status >= 400 &&
    entry.status < 500 &&
    entry.status !== 429 &&
    !Object.hasOwn(state.confirmed, subscriptionId)
  ) {
    state.refused = remembering(
      state.refused,
      subscriptionId,
      requestEvidence(seen, `confirm call refused (${entry.status}); the subscription is not confirmed since`),
      SUBSCRIPTIONS_KEPT,
    );
  }
}

export function subscriptionsVerdict(state: SubscriptionsState, doc: DeepReadonly<AccountDoc>, now: Moment): Verdict {
  const failed: Evidence[] = Object.values(state.refused);
  for (const subscriptionId of state.created) {
    const subscription = doc.subscriptions.find((s) => s.subscriptionId === subscriptionId);
    if (!subscription || subscription.status !== 'pending') continue;
    const tokens = doc.confirmationTokens.filter((t) => t.subscriptionId === subscriptionId);
    const latest = tokens.at(-1);
    if (latest && latest.usedAt === null && Date.parse(latest.expiresAt) <= now.accountMs) {
      failed.push({
        time: latest.expiresAt,
        subscriptionId,
        detail: `its confirmation token expired unused at ${latest.expiresAt}; the subscription is still pending`,
      });
    }
  }
  if (failed.length > 0)
    return {
      status: 'failed',
      evidence: failed.slice(0, EVIDENCE_KEPT),
      more: Math.max(0, failed.length - EVIDENCE_KEPT),
    };
  const confirmed = Object.values(state.confirmed);
  if (confirmed.length > 0) return { status: 'passed', evidence: confirmed.slice(0, EVIDENCE_KEPT) };
  return { status: 'pending', evidence: [] };
}
