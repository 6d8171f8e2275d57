import type { Delivery, DeliveryAttempt } from '../api-types.js';

/** What a delivery was: "alert · lowLeak start", "confirmation", "receiver check". */
export function deliveryTitle(d: Delivery): string {
  if (d.kind === 'alert' && d.payload && typeof d.payload === 'object') {
    const alert = d.payload as { type?: unknown; active?: unknown };
    return `alert · ${String(alert.type)} ${alert.active ? 'start' : 'end'}`;
  }
  return d.kind === 'receiver_check' ? 'receiver check' : d.kind;
}

/**
 * The last answer in a few words: "200 · 12 ms", "500 · 2 ms", "302 · 4 ms · redirects are not
 * followed", "no answer: connection refused", "not sent yet". The status is said once: an error
 * that only repeats it ("HTTP 500") is left out.
 */
export function lastAnswer(d: Delivery): string {
  const last = d.attempts[d.attempts.length - 1];
  if (!last) return d.note ?? 'not sent yet';
  if (last.statusCode === null) return `no answer: ${last.error ?? 'unknown error'}`;
  const error = attemptError(last);
  return `${last.statusCode} · ${last.latencyMs} ms${error ? ` · ${error}` : ''}`;
}

/** An attempt's error beside its status: without the "HTTP 500" that only repeats the status; null when nothing is left. */
export function attemptError(a: DeliveryAttempt): string | null {
  if (a.error === null || a.statusCode === null) return a.error;
  const repeated = `HTTP ${a.statusCode}`;
  if (!a.error.startsWith(repeated)) return a.error;
  return a.error.slice(repeated.length).replace(/^:\s*/, '') || null;
}
