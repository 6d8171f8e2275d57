import type { DeepReadonly, DeliveryRecord } from '../store/data.js';
import { deliveryEvidence, EVIDENCE_KEPT, type CheckId, type Evidence, type Verdict } from './model.js';

/**
 * The webhook checks: each delivery of the window is judged by its first attempt (production
 * does not count on retries), once it has had one.
 *
 * The delivery log is read newest first, and only down to a line: deliveries made before it
 * are settled, judged into the account's readiness digest once, as they crossed it. The line
 * follows the process clock a little behind (SETTLE_AFTER_MS, room for replicas' clocks and a
 * receiver that answers slowly), and never passes a delivery still waiting for its first
 * attempt. So a report reads the deliveries of the last seconds, not the whole log, and a
 * delivery that has left the bounded log still counts.
 */

export const DELIVERY_CHECKS = [
  'webhooks.confirmation-answer',
  'webhooks.check-answer',
  'webhooks.alert-answer',
  'webhooks.duplicate',
  'webhooks.out-of-order',
] as const satisfies readonly CheckId[];
export type DeliveryCheck = (typeof DELIVERY_CHECKS)[number];

/** What was judged for one check: the first few deliveries that passed and failed, and how many failed. */
export interface CheckTally {
  passed: Evidence[];
  failed: Evidence[];
  failedCount: number;
}
export type DeliveryFacts = Record<DeliveryCheck, CheckTally>;

export interface DeliveryLedger {
  /** Deliveries made before this instant (process clock, ms) are settled: judged into `settled`, or outside the window. */
  settledBeforeMs: number;
  settled: DeliveryFacts;
}

/** How far behind the process clock the settle line stays. */
export const SETTLE_AFTER_MS = 5000;

export function initialLedger(sinceMs: number): DeliveryLedger {
  return { settledBeforeMs: sinceMs, settled: emptyFacts() };
}

function emptyFacts(): DeliveryFacts {
  const none = (): CheckTally => ({ passed: [], failed: [], failedCount: 0 });
  return {
    'webhooks.confirmation-answer': none(),
    'webhooks.check-answer': none(),
    'webhooks.alert-answer': none(),
    'webhooks.duplicate': none(),
    'webhooks.out-of-order': none(),
  };
}

export interface Judged {
  check: DeliveryCheck;
  ok: boolean;
  evidence: Evidence;
}

/** When a delivery was made on the process clock (older records: their account-clock time). */
export const madeAtMs = (delivery: DeepReadonly<DeliveryRecord>): number =>
  delivery.createdAtMs ?? Date.parse(delivery.createdAt);

function checkOf(delivery: DeepReadonly<DeliveryRecord>): DeliveryCheck | null {
  switch (delivery.kind) {
    case 'confirmation':
      return 'webhooks.confirmation-answer';
    case 'receiver_check':
      return 'webhooks.check-answer';
    case 'alert':
      if (delivery.sentAsId !== undefined) return 'webhooks.duplicate';
      return delivery.drill === 'out-of-order' ? 'webhooks.out-of-order' : 'webhooks.alert-answer';
    default:
      return null;
  }
}

/** What the message was, for a sentence: "the alert end", "the GET check". */
function describe(delivery: DeepReadonly<DeliveryRecord>): string {
  if (delivery.kind === 'confirmation') return 'the confirmation POST';
  if (delivery.kind === 'receiver_check') return 'the GET check';
  const payload = delivery.payload as { type?: unknown; active?: unknown } | null;
  const phase = payload?.active === false ? 'end' : 'start';
  const what = `the ${typeof payload?.type === 'string' ? `${payload.type} ` : ''}alert ${phase}`;
  if (delivery.sentAsId !== undefined)
    return `${what} sent again as a duplicate (X-Sandbox-Delivery-Id ${delivery.sentAsId})`;
  return delivery.drill === 'out-of-order' ? `${what} of an alert never started` : what;
}

/** Whether a delivery is one the checks judge but has not had its first attempt yet. */
export const awaitsJudgement = (delivery: DeepReadonly<DeliveryRecord>): boolean =>
  checkOf(delivery) !== null && delivery.attempts.length === 0;

/** Judges a delivery by its first attempt; null before it has one, or for a kind no check reads. */
export function judgeDelivery(delivery: DeepReadonly<DeliveryRecord>): Judged | null {
  const check = checkOf(delivery);
  const first = delivery.attempts[0];
  if (check === null || first === undefined) return null;
  const answered2xx = first.statusCode !== null && first.statusCode >= 200 && first.statusCode < 300;
  // A duplicate and an out-of-order end need a 2xx; the rest a 2xx with JSON, as production requires.
  const needsJson = check !== 'webhooks.duplicate' && check !== 'webhooks.out-of-order';
  const json = first.warnings.length === 0;
  const ok = answered2xx && (!needsJson || json);
  const answer =
    first.statusCode === null
      ? `got no answer (${first.error ?? 'no response'})`
      : `was answered ${first.statusCode}${answered2xx && needsJson && !json ? ' with a body that is not JSON' : ''}`;
  return {
    check,
    ok,
    evidence: deliveryEvidence(delivery, `${describe(delivery)} to ${delivery.target} ${answer} at its first attempt`),
  };
}

const idOf = (evidence: Evidence): string | null => ('deliveryId' in evidence ? evidence.deliveryId : null);

function addOnce(list: Evidence[], evidence: Evidence): void {
  if (list.length < EVIDENCE_KEPT && !list.some((e) => idOf(e) === idOf(evidence))) list.push(evidence);
}

/** Counts judgements into facts (in place), oldest first. */
export function tally(facts: DeliveryFacts, judged: readonly Judged[]): void {
  for (const { check, ok, evidence } of judged) {
    const counted = facts[check];
    if (ok) addOnce(counted.passed, evidence);
    else {
      counted.failedCount++;
      addOnce(counted.failed, evidence);
    }
  }
}

/**
 * Moves the settle line (in place) over the deliveries read (those made at or after it, newest
 * first): the ones it passes are judged into the ledger. Returns the judgements of the ones it
 * has not passed yet (live: judged again at each report) and whether the ledger changed.
 */
export function settle(
  ledger: DeliveryLedger,
  fresh: readonly DeepReadonly<DeliveryRecord>[],
  nowMs: number,
): { live: Judged[]; changed: boolean } {
  const waiting = fresh.filter(awaitsJudgement).map(madeAtMs);
  const line = Math.max(ledger.settledBeforeMs, Math.min(nowMs, ...waiting) - SETTLE_AFTER_MS);
  const oldestFirst = [...fresh].reverse();
  const settling = oldestFirst.filter((d) => madeAtMs(d) < line);
  tally(
    ledger.settled,
    settling.flatMap((d) => judgeDelivery(d) ?? []),
  );
  const changed = settling.length > 0;
  if (changed) ledger.settledBeforeMs = line;
  return {
    live: oldestFirst.filter((d) => madeAtMs(d) >= ledger.settledBeforeMs).flatMap((d) => judgeDelivery(d) ?? []),
    changed,
  };
}

/** A check's verdict from what has settled and the deliveries still live. */
export function deliveryVerdict(check: DeliveryCheck, ledger: DeliveryLedger, live: readonly Judged[]): Verdict {
  const facts: DeliveryFacts = { ...ledger.settled, [check]: structuredClone(ledger.settled[check]) };
  tally(
    facts,
    live.filter((j) => j.check === check),
  );
  const { passed, failed, failedCount } = facts[check];
  if (failedCount > 0) return { status: 'failed', evidence: failed, more: failedCount - failed.length };
  if (passed.length > 0) return { status: 'passed', evidence: passed };
  return { status: 'pending', evidence: [] };
}
