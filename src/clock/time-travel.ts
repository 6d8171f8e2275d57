import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { Store } from '../store/store.js';
import { setAccountFrozen, setAccountNow, type AccountClocks, type ClockState } from './account-clock.js';
import type { ClockChange } from './clock-request.js';

/**
 * Work that falls due on an account's clock (scenario steps, webhook retries; the delivery
 * dispatcher is one as it is). `runDue` does what is due at the account's current instant
 * and resolves when it is recorded.
 */
export interface DueWork {
  nextDueMs(accountId: string): number | null;
  runDue(accountId: string): Promise<void>;
}

export interface TimeTravelDeps {
  clock: Clock;
  clocks: AccountClocks;
  store: Store;
  logger: Logger;
}

// Rounds of work at one instant; each round normally finishes everything due, so this is a safety net.
const MAX_ROUNDS = 100;

/**
 * Applies a clock change for one account. A move forward (advanceSeconds, or `now` later
 * than the current instant) stops at each instant where work falls due, in time order, does
 * that work, and only then moves on, so a retry due at +60 s is sent before a scenario step
 * due at +90 s, each at its own virtual time. A move back only sets the clock; pending work
 * keeps its instants and falls due when the clock reaches them again.
 */
export async function changeAccountClock(deps: TimeTravelDeps, accountId: string, change: ClockChange, work: DueWork[]): Promise<ClockState> {
  return deps.clocks.exclusive(accountId, async () => {
    const baseMs = (): number => deps.clock.now().getTime();
    const nowMs = (): number => deps.clocks.now(accountId).getTime();
    const setNow = (ms: number, durable: boolean): Promise<void> =>
      deps.store.write((d) => setAccountNow(d, accountId, baseMs(), ms), { durable });

    if (change.frozen !== undefined) {
      const frozen = change.frozen;
      await deps.store.write((d) => setAccountFrozen(d, accountId, baseMs(), frozen));
    }
    const move = change.move;
    if (move) {
      const startMs = nowMs();
      const targetMs = move.to === 'later' ? startMs + move.ms : move.ms;
      if (targetMs <= startMs) {
        await setNow(targetMs, true);
      } else {
        await runDueWork(deps, accountId, work);
        for (;;) {
          const next = nextDue(accountId, work);
          if (next === null || next > targetMs) break;
          if (next > nowMs()) await setNow(next, false);
          await runDueWork(deps, accountId, work);
          const after = nextDue(accountId, work);
          if (after !== null && after <= next && after <= nowMs()) {
            // Due but unable to run (e.g. a delivery waiting on another): go to the target instead of spinning.
            deps.logger.warn('clock move: work due now did not run; moving on to the target', { accountId, dueAtMs: after });
            break;
          }
        }
        await setNow(targetMs, true);
      }
    }
    await runDueWork(deps, accountId, work);
    return deps.clocks.state(accountId);
  });
}

function nextDue(accountId: string, work: DueWork[]): number | null {
  let min: number | null = null;
  for (const w of work) {
    const due = w.nextDueMs(accountId);
    if (due !== null && (min === null || due < min)) min = due;
  }
  return min;
}

/** Does every piece of work due at the account's current instant, until none is left. */
async function runDueWork(deps: TimeTravelDeps, accountId: string, work: DueWork[]): Promise<void> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    for (const w of work) await w.runDue(accountId);
    const next = nextDue(accountId, work);
    if (next === null || next > deps.clocks.now(accountId).getTime()) return;
  }
  deps.logger.warn('due work did not settle at this instant; continuing', { accountId });
}
