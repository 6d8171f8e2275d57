import type { SandboxHttp } from './http.js';
import type { Delivery, ReadinessCheck as Check, ReadinessReport as Report } from './types.js';

/**
 * What could still settle a required check that is pending, read from what a client of the API
 * sees: the report itself, the deliveries still waiting for their first attempt
 * (GET /sandbox/deliveries?state=pending) and the account's clock. `readiness --wait` and the
 * client's `assertReady({ waitSeconds })` wait only while something is in flight; JUnit and the
 * annotations say what would settle the rest.
 *
 * In flight:
 * - a delivery a check judges (a confirmation, the GET check, an alert) that has not had its
 *   first attempt: its answer decides the check;
 * - readings.pagination's open walk (its evidence): within a minute of its first page it passes
 *   or fails;
 * - a drill's answer that the client has yet to follow (the evidence of errors.rate-limit,
 *   errors.server-errors or oauth.refresh: a 429, a 5xx, a request with an expired token), for
 *   FOLLOW_UP_MS after it: a client that is still running sends its next request by then.
 * Nothing else settles a pending check without the integration doing something new.
 */

/** How long a drill's answer counts as waiting for the client's next request. */
export const FOLLOW_UP_MS = 30_000;

export interface Outlook {
  /** Deliveries in state pending that have not had their first attempt yet. */
  awaiting: readonly Delivery[];
  /** The account clock's now, ms. */
  accountNowMs: number;
  /** How long the command has waited so far, ms: a frozen account clock does not stop the follow-up's time running out. */
  waitedMs: number;
}

/** Which deliveries decide which check. */
const DECIDES: Partial<Record<Check['id'], (delivery: Delivery) => boolean>> = {
  'webhooks.confirmation-answer': (d) => d.kind === 'confirmation',
  // The receiver gets the token with the confirmation POST and confirms after it.
  'subscriptions.confirmed': (d) => d.kind === 'confirmation',
  // The GET check is sent once the confirmation POST has had its first attempt.
  'webhooks.check-answer': (d) => d.kind === 'receiver_check' || d.kind === 'confirmation',
  'webhooks.alert-answer': (d) => d.kind === 'alert' && d.drill !== 'out-of-order',
  'webhooks.duplicate': (d) => d.kind === 'alert' && d.redeliveryOf !== null,
  'webhooks.out-of-order': (d) => d.kind === 'alert' && d.drill === 'out-of-order',
};

/** The checks whose evidence, while pending, is a drill's answer waiting for the client's next request. */
const FOLLOWS_UP = new Set<Check['id']>(['errors.rate-limit', 'errors.server-errors', 'oauth.refresh']);

/** The required checks that are pending. */
export const pendingRequired = (report: Report): Check[] =>
  report.checks.filter((c) => c.required && c.status === 'pending');

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

function inFlightFor(check: Check, outlook: Outlook): string | null {
  const last = check.evidence.at(-1);
  if (check.id === 'readings.pagination') {
    // The report lists the open walks as the evidence of a pending pagination check.
    if (!last) return null;
    return `${plural(check.evidence.length, 'walk', 'walks')} through pages still open (${last.detail}); a walk passes or fails a minute after its first page`;
  }
  if (FOLLOWS_UP.has(check.id)) {
    if (!last) return null;
    const sinceMs = Math.max(outlook.accountNowMs - Date.parse(last.time), outlook.waitedMs);
    if (sinceMs >= FOLLOW_UP_MS) return null;
    return `the client's next request after ${last.time} (${last.detail}) is due`;
  }
  const decides = DECIDES[check.id];
  const awaiting = decides ? outlook.awaiting.filter(decides) : [];
  const [first] = awaiting;
  if (first === undefined) return null;
  return `${plural(awaiting.length, 'delivery', 'deliveries')} still to be sent (${first.kind} ${first.deliveryId} to ${first.target}${awaiting.length > 1 ? ', ...' : ''})`;
}

/** For each required check that is pending and could still settle, what is in flight for it. */
export function whatCouldSettle(report: Report, outlook: Outlook): Map<Check['id'], string> {
  const found = new Map<Check['id'], string>();
  for (const check of pendingRequired(report)) {
    const what = inFlightFor(check, outlook);
    if (what !== null) found.set(check.id, what);
  }
  return found;
}

/** Whether a delivery is one the checks are still waiting to see answered. */
export const awaitsFirstAttempt = (delivery: Delivery): boolean =>
  delivery.state === 'pending' && delivery.attempts.length === 0;

/** One look at an account while its readiness is judged: the report, and what could still settle a pending required check. */
export interface Look {
  report: Report;
  /** The required checks that are pending (less any the caller does not judge). */
  pending: Check[];
  /** For each of them that something in flight could settle, what that is. */
  inFlight: Map<Check['id'], string>;
}

/**
 * One look, through the client's SandboxHttp or the CLI's client over it: the report, its pending
 * required checks (less `except`), and what in flight (a delivery not yet tried, the clock's next
 * due work) could settle each of them.
 */
export async function lookAtReadiness(
  http: Pick<SandboxHttp, 'call'>,
  waitedMs: number,
  except: ReadonlySet<string> = new Set(),
): Promise<Look> {
  const report = (await http.call<Report>('GET', '/sandbox/readiness')).body;
  const pending = pendingRequired(report).filter((c) => !except.has(c.id));
  if (pending.length === 0) return { report, pending, inFlight: new Map() };
  const [deliveries, clock] = await Promise.all([
    http.call<{ deliveries: Delivery[] }>('GET', '/sandbox/deliveries?state=pending&perPage=100'),
    http.call<{ now: string }>('GET', '/sandbox/clock'),
  ]);
  const inFlight = whatCouldSettle(report, {
    awaiting: deliveries.body.deliveries.filter(awaitsFirstAttempt),
    accountNowMs: Date.parse(clock.body.now),
    waitedMs,
  });
  for (const id of except) inFlight.delete(id as Check['id']);
  return { report, pending, inFlight };
}

export interface SettleOptions {
  /** Look again for at most this long, ms (0: judge the first look). */
  waitMs: number;
  /** Time between two looks, ms. */
  pollMs: number;
  sleep: (ms: number) => Promise<void>;
}

/**
 * Looks again while a judged check is pending and something in flight could settle it, for at
 * most `waitMs`; stops after two quiet looks in a row (not one: a hand-off, a confirmation
 * answered and the GET check it leads to, may fall between two looks). `readiness --wait` and
 * `assertReady({ waitSeconds })` both wait this way. `first`: a look already taken at 0 ms.
 */
export async function settle(
  look: (waitedMs: number) => Promise<Look>,
  options: SettleOptions,
  first?: Look,
): Promise<{ look: Look; waitedMs: number }> {
  let seen = first ?? (await look(0));
  let waitedMs = 0;
  let quietLooks = 0;
  while (seen.pending.length > 0 && waitedMs < options.waitMs) {
    quietLooks = seen.inFlight.size === 0 ? quietLooks + 1 : 0;
    if (quietLooks >= 2) break;
    const nap = Math.min(options.pollMs, options.waitMs - waitedMs);
    await options.sleep(nap);
    waitedMs += nap;
    seen = await look(waitedMs);
  }
  return { look: seen, waitedMs };
}

/** What waiting ended with, for a message: nothing left in flight, or the time ran out with these in flight. */
export function stoppedWaiting({ look, waitedMs }: { look: Look; waitedMs: number }, waitMs: number): string | null {
  if (waitMs <= 0 || look.pending.length === 0) return null;
  const ids = look.pending.map((c) => c.id).join(', ');
  return look.inFlight.size === 0
    ? `stopped waiting after ${waitedMs / 1000} s: nothing in flight can settle the pending required checks (${ids}); each needs the integration to do something new`
    : `waited ${waitMs / 1000} s, and ${[...look.inFlight.keys()].join(', ')} still in flight`;
}
