import type { AccountDoc, ClockSetting, DeepReadonly, DeliveryRecord } from './data.js';
import { LAST_REQUEST_RESOLUTION_MS, type IndexKind } from './store.js';

/**
 * What a store derives from an account's document on every change: its index keys and when
 * its next piece of work falls due. Both backends use these functions, so they agree.
 */

/** `kind:key`; kinds contain no ":", so the first ":" separates them. */
export type IndexEntry = `${IndexKind}:${string}`;

export const indexEntry = (kind: IndexKind, key: string): IndexEntry => `${kind}:${key}`;

export function splitIndexEntry(entry: string): { kind: IndexKind; key: string } {
  const colon = entry.indexOf(':');
  return { kind: entry.slice(0, colon) as IndexKind, key: entry.slice(colon + 1) };
}

/** Every key that must resolve to this account. */
export function indexEntriesOf(doc: DeepReadonly<AccountDoc>): Set<IndexEntry> {
  const entries = new Set<IndexEntry>();
  for (const k of doc.apiKeys) entries.add(indexEntry('apiKey', k.apiKey));
  for (const u of doc.users) entries.add(indexEntry('email', u.email));
  for (const t of doc.accessTokens) entries.add(indexEntry('accessToken', t.accessToken));
  for (const t of doc.refreshTokens) entries.add(indexEntry('refreshToken', t.refreshToken));
  for (const c of doc.authorizationCodes) entries.add(indexEntry('authorizationCode', c.code));
  for (const c of doc.oauthClients) entries.add(indexEntry('oauthClient', c.clientId));
  for (const l of doc.locations) entries.add(indexEntry('location', l.locationId));
  for (const s of doc.subscriptions) entries.add(indexEntry('subscription', s.subscriptionId));
  for (const link of doc.demo?.links ?? []) entries.add(indexEntry('demoLink', link.token));
  return entries;
}

/** Entries to add and to remove when a document goes from `before` to `after`. */
export function diffEntries(
  before: ReadonlySet<string>,
  after: ReadonlySet<string>,
): { added: string[]; removed: string[] } {
  const added: string[] = [];
  const removed: string[] = [];
  for (const e of after) if (!before.has(e)) added.push(e);
  for (const e of before) if (!after.has(e)) removed.push(e);
  return { added, removed };
}

/** When the account's earliest running scenario step falls due on its clock, or null. */
export function nextRunDueMs(doc: DeepReadonly<AccountDoc>): number | null {
  let min: number | null = null;
  for (const run of doc.runs) {
    if (run.state === 'running' && run.dueAtMs !== null && (min === null || run.dueAtMs < min)) min = run.dueAtMs;
  }
  return min;
}

/** When the delivery's next attempt falls due on the account clock, or null when none will be made. */
export const deliveryDueMs = (delivery: DeepReadonly<DeliveryRecord>): number | null =>
  delivery.state === 'pending' ? delivery.dueAtMs : null;

/**
 * A delivery that is over (delivered or failed): no attempt of it falls due any more. The one
 * way a record leaves `pending`; the webhooks' transitions decide when.
 */
export function endedDelivery<R extends DeepReadonly<DeliveryRecord>>(
  record: R,
  state: 'delivered' | 'failed',
  note?: string,
): R {
  return { ...record, state, dueAtMs: null, ...(note === undefined ? {} : { note }) };
}

/**
 * A delivery as read from storage. Records written before `nextAttemptAt` was derived from
 * `dueAtMs` (by the presenter) carry it beside `dueAtMs`, as do those a replica of such a
 * version writes to a shared Redis: it is dropped, so no stale copy is kept or written again.
 */
export function storedDelivery<R extends DeepReadonly<DeliveryRecord>>(record: R): R {
  if (!('nextAttemptAt' in record)) return record;
  const { nextAttemptAt: _derivedNow, ...rest } = record as R & { nextAttemptAt?: unknown };
  return rest as R;
}

const origins = new Map<string, string>();
const MAX_CACHED_ORIGINS = 10_000;

/**
 * The origin a delivery's target counts against for the dispatcher's per-origin share, and
 * what DeliveryStore.due skips (memoised: parsing URLs is on the dispatcher's hot path).
 */
export function originOf(target: string): string {
  let origin = origins.get(target);
  if (origin === undefined) {
    origin = URL.canParse(target) ? new URL(target).origin : target;
    if (origins.size >= MAX_CACHED_ORIGINS) origins.clear();
    origins.set(target, origin);
  }
  return origin;
}

export const earliest = (a: number | null, b: number | null): number | null =>
  a === null ? b : b === null ? a : Math.min(a, b);

/**
 * The process-clock instant at which work due at `virtualMs` on the account clock falls due:
 * a running clock is the process clock plus an offset; a frozen clock reaches it only if it
 * is already there (then it is due at once: 0), otherwise never, until the clock is moved.
 */
export function processDueMs(virtualMs: number | null, clock: DeepReadonly<ClockSetting>): number | null {
  if (virtualMs === null) return null;
  if (clock.frozenAtMs !== null) return virtualMs <= clock.frozenAtMs ? 0 : null;
  return virtualMs - clock.offsetMs;
}

/**
 * Generated accounts whose last recorded request (or, without one, whose creation) came before
 * this instant are past their lifetime at `nowMs`. The record may lag the last request by up
 * to LAST_REQUEST_RESOLUTION_MS: counting that margin too, an account never ends early, and
 * ends at most that much after its lifetime.
 */
export const lifetimeCutoffMs = (nowMs: number, lifetimeMs: number): number =>
  nowMs - lifetimeMs - LAST_REQUEST_RESOLUTION_MS;

/** Whether an account is past its lifetime at `nowMs`; a lifetime of 0 is none, and fixture accounts have none. */
export function pastLifetime(
  account: { origin: 'fixture' | 'generated'; createdAt: string },
  lastSeenMs: number | null,
  lifetimeMs: number,
  nowMs: number,
): boolean {
  if (lifetimeMs <= 0 || account.origin !== 'generated') return false;
  return (lastSeenMs ?? Date.parse(account.createdAt)) < lifetimeCutoffMs(nowMs, lifetimeMs);
}
