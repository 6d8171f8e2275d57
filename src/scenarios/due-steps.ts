import { type DueWork, timeLockOf } from '../clock/index.js';
import { isServiceUnavailable } from '../core/errors.js';
import { applyDueSteps, nextStepDueMs, type ScenariosDeps } from './runner.js';

/** Scenario steps as work the account clock runs when it moves (the move holds the time lock). */
export function scenarioWork(deps: ScenariosDeps): DueWork {
  return {
    nextDueMs: (accountId) => nextStepDueMs(deps, accountId),
    runDue: async (accountId) => {
      await applyDueSteps(deps, accountId);
    },
  };
}

/**
 * Applies due steps of the accounts with work due (`due`, found by the server's background
 * interval) whose running clock passed them in real time. An account whose time lock is held
 * (a clock move, or another replica applying its steps) is skipped: the holder applies them.
 * Never rejects.
 */
export async function runDueSteps(deps: ScenariosDeps, due: readonly string[]): Promise<void> {
  await Promise.all(
    due.map(async (accountId) => {
      try {
        const doc = await deps.store.accounts.get(accountId);
        if (!doc?.runs.some((r) => r.state === 'running')) return;
        const release = await deps.store.locks.tryLock(timeLockOf(accountId), 30_000);
        if (!release) return;
        try {
          await applyDueSteps(deps, accountId);
        } finally {
          // A release that fails (the store went away) leaves the lock to expire.
          await release().catch(() => undefined);
        }
      } catch (error) {
        if (!isServiceUnavailable(error))
          deps.logger.error('applying scenario steps failed', { accountId, err: error });
      }
    }),
  );
}
