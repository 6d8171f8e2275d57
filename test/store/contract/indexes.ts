import { IndexConflictError, type IndexKind } from '../../../src/store/store.js';
import { givenAccount, givenDelivery, INDEX_KINDS, indexedKeys, keyOf } from '../builders.js';
import { type ContractSuite, FAR } from './suite.js';

/** The look-up indexes (API keys, tokens, codes, clients, locations, subscriptions): each key resolves to the one account that holds it, and never to two. */
export function describeIndexesContract(suite: ContractSuite): void {
  const { store, create, docOf } = suite;

  describe.each(INDEX_KINDS)('the %s index', (kind: IndexKind) => {
    it('resolves a key of a created account', async () => {
      await create(store, givenAccount('a'));
      expect(await store.accounts.lookup(kind, keyOf(kind, 'a'))).toBe('a');
      expect(await store.accounts.lookup(kind, 'no-such-key')).toBeNull();
    });

    it('findByKey answers the owner with its document as it is now, and null once the key is gone', async () => {
      await create(store, givenAccount('a'));
      await create(store, givenAccount('b'));
      expect(await store.accounts.findByKey(kind, keyOf(kind, 'a'))).toEqual({
        accountId: 'a',
        doc: await docOf(store, 'a'),
      });
      expect(await store.accounts.findByKey(kind, 'no-such-key')).toBeNull();

      await store.accounts.update('a', (doc) => void (doc.account.name = 'renamed'));
      expect((await store.accounts.findByKey(kind, keyOf(kind, 'a')))?.doc.account.name).toBe('renamed');
      await store.accounts.update('a', (doc) => indexedKeys[kind].remove(doc, keyOf(kind, 'a')));
      expect(await store.accounts.findByKey(kind, keyOf(kind, 'a'))).toBeNull();
      await store.accounts.delete('b');
      expect(await store.accounts.findByKey(kind, keyOf(kind, 'b'))).toBeNull();
    });

    it('resolves a key added by an update, and the keys from before still resolve', async () => {
      await create(store, givenAccount('a'));
      await store.accounts.update('a', (doc) => indexedKeys[kind].add(doc, 'added-later'));
      expect(await store.accounts.lookup(kind, 'added-later')).toBe('a');
      expect(await store.accounts.lookup(kind, keyOf(kind, 'a'))).toBe('a');
    });

    it('stops resolving a key once an update removes it from the document', async () => {
      await create(store, givenAccount('a'));
      await store.accounts.update('a', (doc) => indexedKeys[kind].remove(doc, keyOf(kind, 'a')));
      expect(await store.accounts.lookup(kind, keyOf(kind, 'a'))).toBeNull();
    });

    it('stops resolving the keys of a deleted account, and they can be used again', async () => {
      await create(store, givenAccount('a'));
      expect(await store.accounts.delete('a')).toBe(true);
      expect(await store.accounts.lookup(kind, keyOf(kind, 'a'))).toBeNull();

      const reuse = givenAccount('c', { withKeys: false });
      indexedKeys[kind].add(reuse, keyOf(kind, 'a'));
      await create(store, reuse);
      expect(await store.accounts.lookup(kind, keyOf(kind, 'a'))).toBe('c');
    });

    it("an update taking another account's key throws IndexConflictError and stores nothing", async () => {
      await create(store, givenAccount('a'));
      await create(store, givenAccount('b'));
      const before = await docOf(store, 'b');

      const taking = store.accounts.update('b', (doc, tx) => {
        indexedKeys[kind].add(doc, 'fresh-key');
        indexedKeys[kind].add(doc, keyOf(kind, 'a'));
        doc.account.name = 'should not be stored';
        tx.addDeliveries([givenDelivery('b', 'not-stored')]);
      });
      await expect(taking).rejects.toBeInstanceOf(IndexConflictError);
      await expect(taking).rejects.toMatchObject({ kind, key: keyOf(kind, 'a') });

      expect(await docOf(store, 'b')).toEqual(before);
      expect(await store.accounts.lookup(kind, keyOf(kind, 'a'))).toBe('a');
      expect(await store.accounts.lookup(kind, 'fresh-key')).toBeNull();
      expect(await store.deliveries.get('b', 'not-stored')).toBeNull();
      expect(await store.accounts.due(FAR, 10)).toEqual([]);
    });

    it("a create taking another account's key throws IndexConflictError and stores nothing", async () => {
      await create(store, givenAccount('a'));
      const clashing = givenAccount('b');
      indexedKeys[kind].add(clashing, keyOf(kind, 'a'));

      await expect(store.accounts.create(clashing, [givenDelivery('b', 'not-stored')])).rejects.toMatchObject({
        name: 'IndexConflictError',
        kind,
        key: keyOf(kind, 'a'),
      });

      expect(await store.accounts.get('b')).toBeNull();
      expect(await store.accounts.count()).toBe(1);
      expect((await store.accounts.list({ limit: 10 })).accounts.map((s) => s.accountId)).toEqual(['a']);
      expect(await store.accounts.lookup(kind, keyOf(kind, 'a'))).toBe('a');
      for (const k of INDEX_KINDS) expect(await store.accounts.lookup(k, keyOf(k, 'b'))).toBeNull();
      expect(await store.accounts.due(FAR, 10)).toEqual([]);
      // Nothing was left behind: the same account without the clash can be created.
      await create(store, givenAccount('b'));
      expect(await store.accounts.lookup(kind, keyOf(kind, 'b'))).toBe('b');
    });
  });
}
