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

export function createAccountClocks(base: Clock, store: Store): AccountClocks {
  const nowMs = (accountId: string): number => accountNowMs(base, store.read((d) => clockRecordOf(d, accountId)));
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
  };
}
