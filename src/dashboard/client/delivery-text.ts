import type { Delivery } from '../api-types.js';

/** What a delivery was: "alert · lowLeak start", "confirmation", "receiver check". */
export function deliveryTitle(d: Delivery): string {
  if (d.kind === 'alert' && d.payload && typeof d.payload === 'object') {
    const alert = d.payload as { type?: unknown; active?: unknown };
    return `alert · ${String(alert.type)} ${alert.active ? 'start' : 'end'}`;
  }
  return d.kind === 'receiver_check' ? 'receiver check' : d.kind;
}

/** The last answer in a few words: "200 · 12 ms", "no answer: connection refused", "not sent yet". */
export function lastAnswer(d: Delivery): string {
  const last = d.attempts[d.attempts.length - 1];
  if (!last) return d.note ?? 'not sent yet';
  if (last.statusCode === null) return `no answer: ${last.error ?? 'unknown error'}`;
  return `${last.statusCode} · ${last.latencyMs} ms${last.error ? ` · ${last.error}` : ''}`;
}
