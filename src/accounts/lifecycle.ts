import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { publishAccountEvent } from '../live/index.js';
import type { AccountDoc, DeepReadonly } from '../store/data.js';
import { lifetimeCutoffMs } from '../store/derived.js';
import type { FixtureSet } from '../store/fixtures.js';
import type { Store } from '../store/store.js';
import { accountDocFromFixture, fixturesFingerprint } from './initial-state.js';
import { resetAccountDoc } from './reset.js';

export interface LifecycleDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  fixtures: FixtureSet;
  config: { readonly accountTtlSeconds: number };
}

const SEEDED = 'seededAt';
export const FIXTURES_FINGERPRINT = 'fixturesFingerprint';
const PAGE = 500;

/**
 * Creates the fixture accounts once per store: the first process to start seeds it, under a
 * lock, so replicas starting together on one Redis do not each load the fixtures.
 */
export async function seedFixtures(deps: LifecycleDeps, prepared?: readonly AccountDoc[]): Promise<boolean> {
  return deps.store.locks.withLock('seed', async () => {
    if ((await deps.store.settings.get(SEEDED)) !== null) return false;
    const now = deps.clock.now();
    // `prepared`: the same documents made once, for tests that start many sandboxes.
    const docs = prepared ?? deps.fixtures.accounts.map((fixture) => accountDocFromFixture(fixture, now));
    for (const doc of docs) await deps.store.accounts.create(structuredClone(doc));
    await deps.store.settings.set(FIXTURES_FINGERPRINT, fixturesFingerprint(deps.fixtures));
    await deps.store.settings.set(SEEDED, now.toISOString());
    return true;
  });
}

/** Whether FIXTURES_DIR changed since the stored state was seeded or last reset. */
export async function fixturesChanged(deps: LifecycleDeps): Promise<boolean> {
  const stored = await deps.store.settings.get(FIXTURES_FINGERPRINT);
  return stored !== null && stored !== fixturesFingerprint(deps.fixtures);
}

/** One account back to its initial state (see resetAccountDoc), its deliveries and journal gone. */
export async function resetAccount(
  deps: { store: Store; clock: Clock },
  accountId: string,
): Promise<{ doc: DeepReadonly<AccountDoc>; revokedApps: number }> {
  const { store } = deps;
  const nowMs = deps.clock.now().getTime();
  const reset = await store.accounts.update(accountId, (d) => ({ revokedApps: resetAccountDoc(d, nowMs), doc: d }));
  await Promise.all([store.deliveries.clear(accountId), store.journal.clear(accountId)]);
  await publishAccountEvent(store, accountId, { type: 'reset' });
  return reset;
}

/**
 * Every account back to the fixtures: generated accounts are deleted, fixture accounts made
 * again from the (re)loaded fixtures, with their stable user ids so login sessions survive.
 */
export async function resetAllAccounts(deps: LifecycleDeps): Promise<{ accounts: number; deleted: number }> {
  return deps.store.locks.withLock('seed', async () => {
    let deleted = 0;
    // Every listed account is deleted, so each page starts from the beginning again.
    for (;;) {
      const { accounts } = await deps.store.accounts.list({ limit: PAGE });
      if (accounts.length === 0) break;
      for (const account of accounts) {
        await deps.store.accounts.delete(account.accountId);
        if (account.origin === 'generated') deleted++;
      }
    }
    const now = deps.clock.now();
    for (const fixture of deps.fixtures.accounts) {
      await deps.store.accounts.create(accountDocFromFixture(fixture, now));
      await publishAccountEvent(deps.store, fixture.accountId, { type: 'reset' });
    }
    await deps.store.settings.set(FIXTURES_FINGERPRINT, fixturesFingerprint(deps.fixtures));
    await deps.store.settings.set(SEEDED, now.toISOString());
    return { accounts: deps.fixtures.accounts.length, deleted };
  });
}

/**
 * Deletes generated accounts idle for longer than ACCOUNT_TTL, with everything they own. The
 * store already treats them as gone from the moment their lifetime ends; this reclaims their
 * storage. One replica at a time does it; each run handles a batch, and the next run the rest.
 */
export async function sweepIdleAccounts(deps: LifecycleDeps, batch = 200): Promise<number> {
  if (deps.config.accountTtlSeconds === 0) return 0;
  const release = await deps.store.locks.tryLock('sweep', 60_000);
  if (!release) return 0;
  try {
    const beforeMs = lifetimeCutoffMs(deps.clock.now().getTime(), deps.config.accountTtlSeconds * 1000);
    const idle = await deps.store.accounts.idleSince(beforeMs, batch);
    for (const accountId of idle) await deps.store.accounts.delete(accountId);
    if (idle.length > 0)
      deps.logger.info('idle accounts deleted', {
        count: idle.length,
        accountTtlSeconds: deps.config.accountTtlSeconds,
      });
    return idle.length;
  } finally {
    await release();
  }
}
