/** The writes of the crash test's child (writer.ts), shared with the test that checks them. */
import type { Store } from '../../../src/store/store.js';
import { givenAccount, givenDelivery, givenFault, indexedKeys } from '../builders.js';

export const MAIN_ACCOUNTS = ['main-0', 'main-1', 'main-2', 'main-3'];

/** The account a write of kind 0 changes. */
export const mainOf = (n: number): string => MAIN_ACCOUNTS[n % MAIN_ACCOUNTS.length]!;

/**
 *   0: an update of a main account: a fault f-<n>, an API key k-<n> and a delivery d-<n>
 *   1: a new account acc-<n> with the API key ak-<n>
 *   2: a setting s-<n> = <n>
 */
export async function writeOf(store: Store, n: number): Promise<void> {
  switch (n % 3) {
    case 0:
      await store.accounts.update(mainOf(n), (doc, tx) => {
        doc.faults.push(givenFault(doc.account.accountId, `f-${n}`));
        indexedKeys.apiKey.add(doc, `k-${n}`);
        tx.addDeliveries([givenDelivery(doc.account.accountId, `d-${n}`)]);
      });
      return;
    case 1: {
      const doc = givenAccount(`acc-${n}`, { origin: 'generated', withKeys: false });
      indexedKeys.apiKey.add(doc, `ak-${n}`);
      await store.accounts.create(doc);
      return;
    }
    default:
      await store.settings.set(`s-${n}`, String(n));
  }
}
