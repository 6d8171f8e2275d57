import type { DeepReadonly, DeliveryRecord, JournalEntry } from '../store/data.js';

/** The checks of docs/readiness.md#the-checks, in the order the report lists them. */
export const CHECK_IDS = [
  'oauth.token-exchange',
  'oauth.refresh',
  'readings.pagination',
  'readings.grouping',
  'polling.interval',
  'errors.rate-limit',
  'errors.server-errors',
  'subscriptions.confirmed',
  'webhooks.confirmation-answer',
  'webhooks.check-answer',
  'webhooks.alert-answer',
  'webhooks.duplicate',
  'webhooks.out-of-order',
  'webhooks.https',
] as const;

export type CheckId = (typeof CHECK_IDS)[number];

export type CheckStatus = 'passed' | 'failed' | 'pending' | 'not_applicable';

/** What decided a check: a request of the journal, a delivery of the log, or a subscription's state. */
export type Evidence =
  | { time: string; request: string; status: number; detail: string }
  | { time: string; deliveryId: string; status: number | null; detail: string }
  | { time: string; subscriptionId: string; detail: string };

/** A check's status with the evidence that decided it; `more` counts evidence of the same kind left out. */
export interface Verdict {
  status: CheckStatus;
  evidence: Evidence[];
  more?: number;
}

/** Evidence kept per check and per kind (failures, passes): the first few say what to look at. */
export const EVIDENCE_KEPT = 5;

/** Appends while there is room; returns whether it was kept. */
export function keep<T>(list: T[], item: T, limit = EVIDENCE_KEPT): boolean {
  if (list.length >= limit) return false;
  list.push(item);
  return true;
}

/**
 * `record` with `key` set; a new key first drops the oldest when `record` holds `limit` already.
 * A new record: the fold state is stored as JSON, so records, not Maps.
 */
export function remembering<V>(
  record: Readonly<Record<string, V>>,
  key: string,
  value: V,
  limit: number,
): Record<string, V> {
  const [oldest] = Object.keys(record);
  if (Object.hasOwn(record, key) || oldest === undefined || Object.keys(record).length < limit)
    return { ...record, [key]: value };
  const { [oldest]: _dropped, ...kept } = record;
  return { ...kept, [key]: value };
}

/**
 * An instant on both clocks: the process clock (the partner's client waits in real time) and the
 * account's clock (which a test may move forward instead of waiting).
 */
export interface Moment {
  atMs: number;
  accountMs: number;
}

/**
 * How much time passed from `a` to `b`: the larger of the two clocks' readings, so a client that
 * waited in real time counts while the account clock is frozen, and moving the account clock
 * forward counts as waiting.
 */
export function elapsedMs(a: Moment, b: Moment): number {
  return Math.max(b.atMs - a.atMs, b.accountMs - a.accountMs);
}

/** A journal entry as the readiness folds read it: with both clocks' instants of its answer and of its start. */
export interface Observed {
  readonly entry: DeepReadonly<JournalEntry>;
  /** When the answer was sent. */
  readonly end: Moment;
  /** When the request arrived. */
  readonly start: Moment;
  /** Its requestLine, made once: a readings poll gives evidence to two checks, and most entries to none. */
  readonly requestLine: string;
}

class ObservedEntry implements Observed {
  #requestLine: string | undefined;

  constructor(
    readonly entry: DeepReadonly<JournalEntry>,
    readonly end: Moment,
    readonly start: Moment,
  ) {}

  get requestLine(): string {
    return (this.#requestLine ??= requestLine(this.entry));
  }
}

export function observe(entry: DeepReadonly<JournalEntry>): Observed {
  const accountMs = Date.parse(entry.time);
  // Entries written before the process times were kept read as if both clocks agreed.
  const atMs = entry.atMs ?? accountMs;
  const startedAtMs = entry.startedAtMs ?? atMs - entry.durationMs;
  const end = { atMs, accountMs };
  return new ObservedEntry(entry, end, { atMs: startedAtMs, accountMs: accountMs - (atMs - startedAtMs) });
}

/**
 * Characters of a request line kept as evidence: the digest keeps a few hundred pieces of
 * evidence, in the account's document (ACCOUNT_STORAGE_LIMIT), and a request line may be long.
 */
export const EVIDENCE_REQUEST_LIMIT = 300;

/** The request line as the partner's client sent it: method, path and query (cut at EVIDENCE_REQUEST_LIMIT characters). */
export function requestLine(entry: DeepReadonly<JournalEntry>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(entry.query)) {
    for (const one of Array.isArray(value) ? value : [value])
      query.append(name, typeof one === 'string' ? one : JSON.stringify(one));
  }
  const text = query.toString();
  const line = `${entry.method} ${entry.path}${text === '' ? '' : `?${text}`}`;
  return line.length > EVIDENCE_REQUEST_LIMIT ? `${line.slice(0, EVIDENCE_REQUEST_LIMIT)}…` : line;
}

export function requestEvidence(observed: Observed, detail: string): Evidence {
  return { time: observed.entry.time, request: observed.requestLine, status: observed.entry.status, detail };
}

export function deliveryEvidence(delivery: DeepReadonly<DeliveryRecord>, detail: string): Evidence {
  const first = delivery.attempts[0];
  return {
    time: first?.at ?? delivery.createdAt,
    deliveryId: delivery.deliveryId,
    status: first?.statusCode ?? null,
    detail,
  };
}

/** Seconds for a message: 2 s, 0.35 s. */
export function seconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(s < 10 ? 2 : 1)} s`;
}

/** Whether an entry is the integration's own traffic: /v1 and the authorization host, not the sandbox's controls. */
export function isIntegrationTraffic(entry: DeepReadonly<JournalEntry>): boolean {
  return !entry.path.startsWith('/sandbox/');
}
