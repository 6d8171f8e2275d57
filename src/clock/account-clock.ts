import type { Clock } from '../core/clock.js';
import type { ClockSetting, DeepReadonly } from '../store/data.js';

/**
 * Each account has its own virtual clock (stored in its document): the process clock plus an
 * offset, or frozen at an instant. It is the "now" of that account's readings, token and
 * confirmation expiry, scenario steps and webhook retries.
 */

export interface ClockState {
  now: string;
  offsetSeconds: number;
  frozen: boolean;
}

export function accountNowMs(base: Clock, clock: DeepReadonly<ClockSetting>): number {
  return accountMsAt(base.now().getTime(), clock);
}

/** The account clock's reading when the process clock reads `processMs`. */
export function accountMsAt(processMs: number, clock: DeepReadonly<ClockSetting>): number {
  return clock.frozenAtMs ?? processMs + clock.offsetMs;
}

export const accountNow = (base: Clock, clock: DeepReadonly<ClockSetting>): Date => new Date(accountNowMs(base, clock));

export function clockState(base: Clock, clock: DeepReadonly<ClockSetting>): ClockState {
  const ms = accountNowMs(base, clock);
  return {
    now: new Date(ms).toISOString(),
    offsetSeconds: Math.round((ms - base.now().getTime()) / 1000),
    frozen: clock.frozenAtMs !== null,
  };
}

/** Puts the clock at `nowMs`, keeping it frozen or running as it is. */
export function setAccountNow(clock: ClockSetting, baseMs: number, nowMs: number): void {
  if (clock.frozenAtMs !== null) clock.frozenAtMs = nowMs;
  else clock.offsetMs = nowMs - baseMs;
}

/** Freezes the clock at its current instant, or lets it run again from the instant it shows. */
export function setAccountFrozen(clock: ClockSetting, baseMs: number, frozen: boolean): void {
  const nowMs = clock.frozenAtMs ?? baseMs + clock.offsetMs;
  if (frozen) {
    clock.frozenAtMs = nowMs;
  } else {
    clock.frozenAtMs = null;
    clock.offsetMs = nowMs - baseMs;
  }
}

/** Back to the wall clock: running, no offset. */
export function setRealTime(clock: ClockSetting): void {
  clock.frozenAtMs = null;
  clock.offsetMs = 0;
}
