import { AccountStorageError, PendingDeliveriesError } from '../../../src/store/limits.js';
import type { Store } from '../../../src/store/store.js';
import { givenAccount, givenDelivery, givenFault, indexedKeys } from '../builders.js';
import type { ContractSuite } from './suite.js';

/** How a store refuses a change over one of its limits: the error class, 409 limit_reached naming the setting, and the message. */
async function expectLimitRefusal(
  refused: Promise<unknown>,
  errorClass: typeof AccountStorageError | typeof PendingDeliveriesError,
  limit: string,
  message: unknown,
): Promise<void> {
  await expect(refused).rejects.toBeInstanceOf(errorClass);
  await expect(refused).rejects.toMatchObject({ status: 409, code: 'limit_reached', limit, message });
}

/**
 * The bounds of an account that every change is checked against, whichever feature makes it:
 * its stored size (ACCOUNT_STORAGE_LIMIT) and its deliveries waiting (MAX_PENDING_DELIVERIES).
 * A refused change stores nothing; one that does not grow the account always passes.
 */
export function describeLimitsContract(suite: ContractSuite): void {
  const { store, create, docOf, openStore } = suite;

  describe('limits.accountBytes (ACCOUNT_STORAGE_LIMIT)', () => {
    /** A fault whose body takes about `bytes` bytes. */
    const bulkyFault = (faultId: string, bytes: number) => ({
      ...givenFault('a', faultId),
      body: { text: 'x'.repeat(bytes) },
    });
    const storedSize = async (s: Store, accountId: string): Promise<number> =>
      Buffer.byteLength(JSON.stringify(await s.accounts.get(accountId)));

    it('refuses a change that would make the document larger than the limit: 409 limit_reached naming the setting and the largest part, nothing stored', async () => {
      const s = (await openStore({ limits: { accountBytes: 20_000, pendingDeliveries: 0 } })).store;
      await create(s, givenAccount('a'));
      for (let i = 0; i < 3; i++)
        await s.accounts.update('a', (doc) => void doc.faults.push(bulkyFault(`f${i}`, 5000)));
      const before = await docOf(s, 'a');
      const refused = s.accounts.update('a', (doc, tx) => {
        doc.faults.push(bulkyFault('f3', 5000));
        indexedKeys.accessToken.add(doc, 'over-token');
        tx.addDeliveries([givenDelivery('a', 'over-delivery')]);
        return 'changed';
      });
      await expectLimitRefusal(
        refused,
        AccountStorageError,
        'ACCOUNT_STORAGE_LIMIT',
        expect.stringMatching(
          /^This change would make the account's stored data [\d,]+ bytes, more than the 20,000 this sandbox keeps per account \(ACCOUNT_STORAGE_LIMIT=20000\); nothing was changed\. Its largest parts: faults [\d,]+ bytes \(DELETE \/sandbox\/faults\)/,
        ),
      );
      expect(await docOf(s, 'a')).toEqual(before);
      expect(await s.accounts.lookup('accessToken', 'over-token')).toBeNull();
      expect(await s.deliveries.get('a', 'over-delivery')).toBeNull();
      expect(await storedSize(s, 'a')).toBeLessThanOrEqual(20_000);
    });

    it('counts the stored bytes of the JSON (UTF-8): a change under the limit passes, one byte more does not', async () => {
      const s = (await openStore({ limits: { accountBytes: 10_000, pendingDeliveries: 0 } })).store;
      await create(s, givenAccount('a'));
      const room = 10_000 - (await storedSize(s, 'a'));
      // The name grows the document by its own length; "é" takes two bytes.
      await s.accounts.update('a', (doc) => void (doc.account.name += 'é'.repeat(Math.floor(room / 2))));
      expect(await storedSize(s, 'a')).toBeLessThanOrEqual(10_000);
      expect(10_000 - (await storedSize(s, 'a'))).toBeLessThan(2);
      await expect(s.accounts.update('a', (doc) => void (doc.account.name += 'éé'))).rejects.toBeInstanceOf(
        AccountStorageError,
      );
    });

    it('a document already over the limit (a lower limit after a restart, fixtures) takes every change that does not grow it', async () => {
      const s = (await openStore({ limits: { accountBytes: 5000, pendingDeliveries: 0 } })).store;
      const doc = givenAccount('a');
      for (let i = 0; i < 3; i++) doc.faults.push(bulkyFault(`f${i}`, 3000));
      await create(s, doc);
      await s.accounts.update('a', (d) => void d.faults.pop());
      await s.accounts.update('a', (d) => void (d.clock.offsetMs = 5));
      await expect(s.accounts.update('a', (d) => void d.faults.push(bulkyFault('f9', 10)))).rejects.toBeInstanceOf(
        AccountStorageError,
      );
      await s.accounts.update('a', (d) => void (d.faults = []));
      await s.accounts.update('a', (d) => void d.faults.push(bulkyFault('f9', 10)));
      expect((await docOf(s, 'a')).faults.map((f) => f.faultId)).toEqual(['f9']);
    });

    it('without a limit (0) any size is stored', async () => {
      await create(store, givenAccount('a'));
      await store.accounts.update('a', (doc) => void doc.faults.push(bulkyFault('f0', 200_000)));
      expect(await storedSize(store, 'a')).toBeGreaterThan(200_000);
    });
  });

  describe('limits.pendingDeliveries (MAX_PENDING_DELIVERIES)', () => {
    it('refuses deliveries beyond the limit, through a change or add: 409 limit_reached, nothing stored; a delivery that finishes makes room', async () => {
      const s = (await openStore({ limits: { accountBytes: 0, pendingDeliveries: 3 } })).store;
      await create(s, givenAccount('a'), [
        givenDelivery('a', 'd0'),
        givenDelivery('a', 'done', { state: 'delivered' }),
      ]);
      await s.deliveries.add('a', [givenDelivery('a', 'd1')]);
      await s.accounts.update('a', (_doc, tx) => tx.addDeliveries([givenDelivery('a', 'd2')]));
      const refused = s.accounts.update('a', (doc, tx) => {
        doc.account.name = 'with a delivery too many';
        tx.addDeliveries([givenDelivery('a', 'd3')]);
      });
      await expectLimitRefusal(
        refused,
        PendingDeliveriesError,
        'MAX_PENDING_DELIVERIES',
        expect.stringContaining(
          'This account has 3 webhook deliveries waiting to be sent, and this sandbox keeps at most 3 (MAX_PENDING_DELIVERIES=3); nothing was changed',
        ),
      );
      await expect(s.deliveries.add('a', [givenDelivery('a', 'd3')])).rejects.toBeInstanceOf(PendingDeliveriesError);
      expect((await docOf(s, 'a')).account.name).toBe('Account a');
      expect(await s.deliveries.get('a', 'd3')).toBeNull();
      // A change that adds no delivery is not held up by them.
      await s.accounts.update('a', (doc) => void (doc.account.name = 'renamed'));
      await s.deliveries.update(
        'a',
        'd0',
        (record) => void Object.assign(record, { state: 'delivered', dueAtMs: null }),
      );
      await s.deliveries.add('a', [givenDelivery('a', 'd3')]);
      expect((await s.deliveries.list('a', { state: 'pending', offset: 0, limit: 10 })).total).toBe(3);
    });
  });
}
