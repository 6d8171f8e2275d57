import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { Store } from '../store/store.js';
import {
  accountNowMs,
  clockState,
  setAccountFrozen,
  setAccountNow,
  setRealTime,
  type ClockState,
} from './account-clock.js';
import type { ClockChange } from './clock-request.js';

/**
 * Work that falls due on an account's clock (scenario steps, webhook retries). `runDue` does
 * what is due at the account's current instant and resolves when it is recorded.
 */
export interface DueWork {
  nextDueMs(accountId: string): Promise<number | null>;
  runDue(accountId: string): Promise<void>;
}

export interface TimeTravelDeps {
  clock: Clock;
  store: Store;
  logger: Logger;
}

// Rounds of work at one instant; each round normally finishes everything due, so this is a safety net.
const MAX_ROUNDS = 100;

/** The lock that makes an account's time move one operation at a time, across replicas. */
export const timeLockOf = (accountId: string): string => `time:${accountId}`;

/**
 * Applies a clock change for one account. A move forward (advanceSeconds, or `now` later
 * than the current instant) stops at each instant where work falls due, in time order, does
 * that work, and only then moves on, so a retry due at +60 s is sent before a scenario step
 * due at +90 s, each at its own virtual time. A move back only sets the clock; pending work
 * keeps its instants and falls due when the clock reaches them again. The account's time
 * lock makes each move, and the work it runs, happen once whichever replica gets the call.
 */
export function changeAccountClock(
  deps: TimeTravelDeps,
  accountId: string,
  change: ClockChange,
  work: readonly DueWork[],
): Promise<ClockState> {
  return deps.store.locks.withLock(timeLockOf(accountId), async () => {
    const baseMs = (): number => deps.clock.now().getTime();
    const nowMs = async (): Promise<number> => {
      const doc = await deps.store.accounts.get(accountId);
      return doc ? accountNowMs(deps.clock, doc.clock) : baseMs();
    };
    const setNow = (ms: number): Promise<void> =>
      deps.store.accounts.update(accountId, (doc) => setAccountNow(doc.clock, baseMs(), ms));

    if (change.realTime) await deps.store.accounts.update(accountId, (doc) => setRealTime(doc.clock));
    if (change.frozen !== undefined) {
      const frozen = change.frozen;
      await deps.store.accounts.update(accountId, (doc) => setAccountFrozen(doc.clock, baseMs(), frozen));
    }
    const move = change.move;
    if (move) {
      const startMs = await nowMs();
      const targetMs = move.to === 'later' ? startMs + move.ms : move.ms;
      if (targetMs <= startMs) {
        await setNow(targetMs);
      } else {
        await runDueWork(deps, accountId, work);
        for (;;) {
          const next = await nextDue(accountId, work);
          if (next === null || next > targetMs) break;
          if (next > (await nowMs())) await setNow(next);
          await runDueWork(deps, accountId, work);
          const after = await nextDue(accountId, work);
          if (after !== null && after <= next && after <= (await nowMs())) {
            // Due but unable to run (e.g. held by a replica that went away): go to the target instead of spinning.
            deps.logger.warn('clock move: work due now did not run; moving on to the target', {
              accountId,
              dueAtMs: after,
            });
            break;
          }
        }
        await setNow(targetMs);
      }
    }
    await runDueWork(deps, accountId, work);
    const doc = await deps.store.accounts.get(accountId);
    return clockState(deps.clock, doc?.clock ?? { offsetMs: 0, frozenAtMs: null });
  });
}

async function nextDue(accountId: string, work: readonly DueWork[]): Promise<number | null> {
  let min: number | null = null;
  for (const w of work) {
    const due = await w.nextDueMs(accountId);
    if (due !== null && (min === null || due < min)) min = due;
  }
  return min;
}

/** Does every piece of work due at the account's current instant, until none is left. */
async function runDueWork(deps: TimeTravelDeps, accountId: string, work: readonly DueWork[]): Promise<void> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    for (const w of work) await w.runDue(accountId);
    const next = await nextDue(accountId, work);
    const doc = await deps.store.accounts.get(accountId);
    if (next === null || !doc || next > accountNowMs(deps.clock, doc.clock)) return;
  }
  deps.logger.warn('due work did not settle at this instant; continuing', { accountId });
}
