import request from 'supertest';

import { FOLD_EVERY, foldInterval } from '../../src/readiness/service.js';
import { JOURNAL_LIMIT } from '../../src/store/store.js';
import { bearer, DEMO_ACCOUNT_ID, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';
import { useTestApp } from '../helpers/use-test-app.js';

/** How often a process folds an account's evidence into its digest, and that it folds before a count is lost. */

describe('foldInterval', () => {
  it('is a quarter of the journal when replicas share the store, three quarters in a store of one process', () => {
    expect(foldInterval({ sharedStore: true, deliveryLogLimit: 200 })).toBe(FOLD_EVERY);
    expect(FOLD_EVERY).toBe(JOURNAL_LIMIT / 4);
    expect(foldInterval({ sharedStore: false, deliveryLogLimit: 1000 })).toBe((JOURNAL_LIMIT * 3) / 4);
  });

  it('follows a delivery log smaller than the journal, and is at least 1', () => {
    expect(foldInterval({ sharedStore: false, deliveryLogLimit: 60 })).toBe(45);
    expect(foldInterval({ sharedStore: true, deliveryLogLimit: 60 })).toBe(15);
    expect(foldInterval({ sharedStore: true, deliveryLogLimit: 1 })).toBe(1);
    expect(foldInterval({ sharedStore: false, deliveryLogLimit: 1 })).toBe(1);
  });
});

const t = useTestApp();

const storedCursor = async (accountId: string): Promise<number> =>
  (await t.store.accounts.get(accountId))?.readiness?.cursor ?? 0;

/** Turns of the event loop until the stored cursor moves past `from`, at most `turns` of them: a fold runs off the request's path. */
async function cursorAfter(accountId: string, from: number, turns = 1000): Promise<number> {
  for (let i = 0; i < turns; i++) {
    const cursor = await storedCursor(accountId);
    if (cursor > from) return cursor;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return storedCursor(accountId);
}

const newestSeq = async (accountId: string): Promise<number> => (await t.store.journal.list(accountId, 1))[0]?.seq ?? 0;

async function getLocation(times: number): Promise<void> {
  for (let i = 0; i < times; i++)
    await request(t.app).get(`/v1/locations/${DEMO_LOCATION_ID}`).set(bearer(DEMO_API_KEY)).expect(200);
}

describe('a store of one process (the in-memory store here)', () => {
  const interval = foldInterval({ sharedStore: false, deliveryLogLimit: 1000 });

  it(`stores the digest after ${interval} journal appends, not before`, async () => {
    await getLocation(interval - 1);
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(await storedCursor(DEMO_ACCOUNT_ID)).toBe(0);
    await getLocation(1);
    expect(await cursorAfter(DEMO_ACCOUNT_ID, 0)).toBe(await newestSeq(DEMO_ACCOUNT_ID));
  });

  it('drops the longest count when too many accounts are counted, reading nothing back for it, and counts the account again at its next activity', async () => {
    await getLocation(interval - 10);
    // Accounts that do not exist: a fold of one finds nothing and stores nothing.
    for (let i = 0; i < 10_000; i++) t.deps.readiness.noteActivity(`acct_nobody_${i}`);
    // Its count is gone, and it was not folded for it (a fold of an idle account reads it back).
    expect(await cursorAfter(DEMO_ACCOUNT_ID, 0, 50)).toBe(0);
    // Its next activity counts it again from the journal: ten more make the interval, and by then
    // the digest is stored with every entry from before the drop, as if it had never been dropped.
    await getLocation(10);
    expect(await cursorAfter(DEMO_ACCOUNT_ID, 0)).toBeGreaterThan(interval - 10);
  });

  it('counts an account it has not counted from the store, and stores nothing for a few entries', async () => {
    for (let i = 0; i < 10_001; i++) t.deps.readiness.noteActivity(`acct_nobody_${i}`);
    await getLocation(3);
    // A few entries after the stored digest: counted, not stored (no account write for them).
    expect(await cursorAfter(DEMO_ACCOUNT_ID, 0, 50)).toBe(0);
    // Stored by the interval at the latest (a count counted again may fold a little sooner).
    await getLocation(interval - 3);
    expect(await cursorAfter(DEMO_ACCOUNT_ID, 0)).toBeGreaterThan(3);
  });
});
