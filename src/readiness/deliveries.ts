import type { DeepReadonly, DeliveryRecord } from '../store/data.js';
import { deliveryEvidence, EVIDENCE_KEPT, type CheckId, type Evidence, type Verdict } from './model.js';

/**
 * The webhook checks: each delivery of the window is judged by its first attempt (production
 * does not count on retries), once it has had one. What was judged is also kept in the
 * account's readiness digest, so deliveries that have left the bounded log still count.
 */

export const DELIVERY_CHECKS = ['webhooks.confirmation-answer', 'webhooks.check-answer', 'webhooks.alert-answer', 'webhooks.duplicate', 'webhooks.out-of-order'] as const satisfies readonly CheckId[];
export type DeliveryCheck = (typeof DELIVERY_CHECKS)[number];

/** Deliveries judged for one check: the first few that passed and that failed, by delivery id. */
export type DeliveryFacts = Record<DeliveryCheck, { passed: Evidence[]; failed: Evidence[] }>;

export function initialDeliveryFacts(): DeliveryFacts {
  const none = (): { passed: Evidence[]; failed: Evidence[] } => ({ passed: [], failed: [] });
  return { 'webhooks.confirmation-answer': none(), 'webhooks.check-answer': none(), 'webhooks.alert-answer': none(), 'webhooks.duplicate': none(), 'webhooks.out-of-order': none() };
}

export interface Judged {
  check: DeliveryCheck;
  ok: boolean;
  evidence: Evidence;
}

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
  if (delivery.sentAsId !== undefined) return `${what} sent again as a duplicate (X-Sandbox-Delivery-Id ${delivery.sentAsId})`;
  return delivery.drill === 'out-of-order' ? `${what} of an alert never started` : what;
}

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
  const answer = first.statusCode === null ? `got no answer (${first.error ?? 'no response'})` : `was answered ${first.statusCode}${answered2xx && needsJson && !json ? ' with a body that is not JSON' : ''}`;
  return { check, ok, evidence: deliveryEvidence(delivery, `${describe(delivery)} to ${delivery.target} ${answer} at its first attempt`) };
}

const idOf = (evidence: Evidence): string | null => ('deliveryId' in evidence ? evidence.deliveryId : null);

function addOnce(list: Evidence[], evidence: Evidence): boolean {
  if (list.length >= EVIDENCE_KEPT || list.some((e) => idOf(e) === idOf(evidence))) return false;
  list.push(evidence);
  return true;
}

/** Adds the judgements of the log to what was kept (in place); returns whether anything was added. */
export function mergeDeliveryFacts(facts: DeliveryFacts, judged: readonly Judged[]): boolean {
  let changed = false;
  for (const { check, ok, evidence } of judged) {
    if (addOnce(ok ? facts[check].passed : facts[check].failed, evidence)) changed = true;
  }
  return changed;
}

/** A check's verdict from what was kept and the log as it is now (which may hold more than was kept). */
export function deliveryVerdict(check: DeliveryCheck, facts: DeliveryFacts, judged: readonly Judged[]): Verdict {
  const now = judged.filter((j) => j.check === check);
  const failedIds = new Set([...facts[check].failed.map(idOf), ...now.filter((j) => !j.ok).map((j) => idOf(j.evidence))]);
  if (failedIds.size > 0) return { status: 'failed', evidence: facts[check].failed, more: failedIds.size - facts[check].failed.length };
  if (facts[check].passed.length > 0) return { status: 'passed', evidence: facts[check].passed };
  return { status: 'pending', evidence: [] };
}
