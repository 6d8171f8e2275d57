import type { Clock } from '../core/clock.js';
import type { ClockRecord, Data, DeepReadonly } from '../store/data.js';
import type { Store } from '../store/store.js';

/**
 * Each account has its own virtual clock: the process clock plus an offset, or frozen at an
 * instant. It is the "now" of that account's readings, token and confirmation expiry,
 * scenario steps and webhook retries.
 */
export interface AccountClocks {
  now(accountId: string): Date;
  state(accountId: string): ClockState;
  /**
   * Runs `fn` when no other exclusive work of the account is running, so the account's time
   * moves one operation at a time (clock moves, scenario steps). Not reentrant.
   */
  exclusive<T>(accountId: string, fn: () => Promise<T>): Promise<T>;
  /** Whether exclusive work of the account is running or waiting. */
  isBusy(accountId: string): boolean;
}

export interface ClockState {
  now: string;
  offsetSeconds: number;
  frozen: boolean;
}

export function clockRecordOf(data: DeepReadonly<Data>, accountId: string): DeepReadonly<ClockRecord> | undefined {
  return data.clocks.find((c) => c.accountId === accountId);
}

export function accountNowMs(base: Clock, record: DeepReadonly<ClockRecord> | undefined): number {
  if (!record) return base.now().getTime();
  return record.frozenAtMs ?? base.now().getTime() + record.offsetMs;
}

function ensureRecord(data: Data, accountId: string): ClockRecord {
  let record = data.clocks.find((c) => c.accountId === accountId);
  if (!record) {
    record = { accountId, offsetMs: 0, frozenAtMs: null };
    data.clocks.push(record);
  }
  return record;
}

/** Puts the account's clock at `nowMs`, keeping it frozen or running as it is. */
export function setAccountNow(data: Data, accountId: string, baseMs: number, nowMs: number): void {
  const record = ensureRecord(data, accountId);
  if (record.frozenAtMs !== null) record.frozenAtMs = nowMs;
  else record.offsetMs = nowMs - baseMs;
}

/** Freezes the account's clock at its current instant, or lets it run again from the instant it shows. */
export function setAccountFrozen(data: Data, accountId: string, baseMs: number, frozen: boolean): void {
  const record = ensureRecord(data, accountId);
  const nowMs = record.frozenAtMs ?? baseMs + record.offsetMs;
  if (frozen) {
    record.frozenAtMs = nowMs;
  } else {
    record.frozenAtMs = null;
    record.offsetMs = nowMs - baseMs;
  }
}

export function createAccountClocks(base: Clock, store: Store): AccountClocks {
  const nowMs = (accountId: string): number => accountNowMs(base, store.read((d) => clockRecordOf(d, accountId)));
  // The tail of each account's chain of exclusive work; removed when the chain drains.
  const tails = new Map<string, Promise<unknown>>();
  return {
    now: (accountId) => new Date(nowMs(accountId)),
    state: (accountId) => {
      const record = store.read((d) => clockRecordOf(d, accountId));
      const ms = accountNowMs(base, record);
      return {
        now: new Date(ms).toISOString(),
        offsetSeconds: Math.round((ms - base.now().getTime()) / 1000),
        frozen: record?.frozenAtMs != null,
      };
    },
    exclusive: (accountId, fn) => {
      const previous = tails.get(accountId) ?? Promise.resolve();
      const result = previous.then(fn);
      const tail = result.catch(() => undefined);
      tails.set(accountId, tail);
      void tail.then(() => {
        if (tails.get(accountId) === tail) tails.delete(accountId);
      });
      return result;
    },
    isBusy: (accountId) => tails.has(accountId),
  };
}
