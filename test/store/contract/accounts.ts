import type { AccountDoc } from '../../../src/store/data.js';
import { AccountMissingError, AccountsFullError } from '../../../src/store/store.js';
import {
  givenAccount,
  givenAttempt,
  givenDelivery,
  givenFault,
  givenJournalEntry,
  INDEX_KINDS,
  indexedKeys,
  iso,
  keyOf,
  T0,
} from '../builders.js';
import { type ContractSuite, FAR, FROZEN } from './suite.js';

/** Accounts: each account on its own, update as a whole-or-nothing compare-and-set of its document (with its deliveries and keys), one change at a time, and the account list. */
export function describeAccountsContract(suite: ContractSuite): void {
  const { store, create, docOf } = suite;

  describe('per-account isolation', () => {
    it('when two accounts are changed, each document holds only its own changes', async () => {
      await create(store, givenAccount('a'));
      await create(store, givenAccount('b'));
      await store.accounts.update('a', (doc) => void doc.faults.push(givenFault('a', 'fault-a')));
      await store.accounts.update('b', (doc) => void (doc.account.name = 'Bee'));

      const a = await docOf(store, 'a');
      const b = await docOf(store, 'b');
      expect(a.account).toMatchObject({ accountId: 'a', name: 'Account a' });
      expect(a.faults.map((f) => f.faultId)).toEqual(['fault-a']);
      expect(b.account).toMatchObject({ accountId: 'b', name: 'Bee' });
      expect(b.faults).toEqual([]);
    });

    it('every key resolves to the account owning it, never to another one', async () => {
      await create(store, givenAccount('a'));
      await create(store, givenAccount('b'));
      for (const kind of INDEX_KINDS) {
        expect(await store.accounts.lookup(kind, keyOf(kind, 'a'))).toBe('a');
        expect(await store.accounts.lookup(kind, keyOf(kind, 'b'))).toBe('b');
      }
    });

    it('a key of one kind does not resolve under another kind', async () => {
      const doc = givenAccount('a', { withKeys: false });
      indexedKeys.apiKey.add(doc, 'shared-text');
      await create(store, doc);
      expect(await store.accounts.lookup('apiKey', 'shared-text')).toBe('a');
      for (const kind of INDEX_KINDS.filter((k) => k !== 'apiKey'))
        expect(await store.accounts.lookup(kind, 'shared-text')).toBeNull();
    });

    it('deliveries and journals of two accounts never mix', async () => {
      await create(store, givenAccount('a'));
      await create(store, givenAccount('b'));
      await store.deliveries.add('a', [givenDelivery('a', 'd-a')]);
      await store.deliveries.add('b', [givenDelivery('b', 'd-b')]);
      await store.journal.append('a', givenJournalEntry('a', 1));
      await store.journal.append('b', givenJournalEntry('b', 2));

      expect((await store.deliveries.list('a', { offset: 0, limit: 10 })).items.map((d) => d.deliveryId)).toEqual([
        'd-a',
      ]);
      expect((await store.deliveries.list('b', { offset: 0, limit: 10 })).items.map((d) => d.deliveryId)).toEqual([
        'd-b',
      ]);
      expect(await store.deliveries.get('b', 'd-a')).toBeNull();
      expect(await store.deliveries.get('a', 'd-b')).toBeNull();
      expect(await store.deliveries.update('b', 'd-a', (d) => (d.state = 'failed'))).toBeNull();
      expect((await store.deliveries.get('a', 'd-a'))?.state).toBe('pending');
      expect((await store.journal.list('a', 10)).map((e) => e.accountId)).toEqual(['a']);
      expect((await store.journal.list('b', 10)).map((e) => e.accountId)).toEqual(['b']);
    });
  });

  describe('accounts.update', () => {
    it("returns the change's result and stores what it did", async () => {
      await create(store, givenAccount('a'));
      const result = await store.accounts.update('a', (doc) => {
        doc.clock.offsetMs = 5000;
        return { faults: doc.faults.length };
      });
      expect(result).toEqual({ faults: 0 });
      expect((await docOf(store, 'a')).clock.offsetMs).toBe(5000);
    });

    it('gives the change a copy: changing it after the update resolved throws and stores nothing (the draft is unusable once the change ends)', async () => {
      await create(store, givenAccount('a'));
      let seen: AccountDoc | undefined;
      await store.accounts.update('a', (doc) => {
        doc.account.name = 'changed';
        seen = doc;
      });
      const UNUSABLE = /revoked/;
      expect(() => (seen!.account.name = 'changed afterwards')).toThrow(UNUSABLE);
      expect(() => seen!.faults.push(givenFault('a', 'late'))).toThrow(UNUSABLE);
      expect(() => indexedKeys.apiKey.add(seen!, 'late-key')).toThrow(UNUSABLE);

      const stored = await docOf(store, 'a');
      expect(stored.account.name).toBe('changed');
      expect(stored.faults).toEqual([]);
      expect(await store.accounts.lookup('apiKey', 'late-key')).toBeNull();
    });

    it('hands back a result holding parts of the draft as the change left them, and changing the result stores nothing', async () => {
      await create(store, givenAccount('a'));
      const result = await store.accounts.update('a', (doc, tx) => {
        doc.faults.push(givenFault('a', 'f1'));
        doc.account.name = 'renamed';
        const fault = doc.faults[0]!;
        fault.remaining = 7;
        tx.addDeliveries([{ ...givenDelivery('a', 'd1'), payload: { account: doc.account } }]);
        return { doc, fault, nested: [{ clock: doc.clock, account: doc.account }] };
      });
      expect(result.doc.account.name).toBe('renamed');
      expect(result.doc.faults.map((f) => [f.faultId, f.remaining])).toEqual([['f1', 7]]);
      expect(result.fault).toMatchObject({ faultId: 'f1', remaining: 7 });
      expect(result.nested[0]).toEqual({ clock: result.doc.clock, account: result.doc.account });
      expect(((await store.deliveries.get('a', 'd1'))?.payload as { account: { name: string } }).account.name).toBe(
        'renamed',
      );
      try {
        result.fault.remaining = 99;
      } catch {
        // A part the store keeps frozen: changing it throws, which is as good.
      }
      expect((await docOf(store, 'a')).faults[0]!.remaining).toBe(7);
    });

    it('when the change throws, rejects with its error and stores nothing, not even its deliveries or keys', async () => {
      await create(store, givenAccount('a'));
      const before = await docOf(store, 'a');
      const failure = new Error('the change failed');

      await expect(
        store.accounts.update('a', (doc, tx) => {
          doc.account.name = 'half-done';
          indexedKeys.accessToken.add(doc, 'half-done-token');
          tx.addDeliveries([givenDelivery('a', 'half-done-delivery')]);
          throw failure;
        }),
      ).rejects.toBe(failure);

      expect(await docOf(store, 'a')).toEqual(before);
      expect(await store.accounts.lookup('accessToken', 'half-done-token')).toBeNull();
      expect(await store.deliveries.get('a', 'half-done-delivery')).toBeNull();
      expect((await store.deliveries.list('a', { offset: 0, limit: 10 })).total).toBe(0);
      expect(await store.accounts.due(FAR, 10)).toEqual([]);
    });

    it('hands out frozen documents: a reader cannot change what is stored', async () => {
      await create(store, givenAccount('a'));
      await store.accounts.update('a', (doc) => void doc.faults.push(givenFault('a', 'f1')));
      const read = (await store.accounts.get('a'))!;
      expect(Object.isFrozen(read)).toBe(true);
      expect(Object.isFrozen(read.faults[0])).toBe(true);
      expect(() => ((read.account as { name: string }).name = 'x')).toThrow(FROZEN);
      expect((await docOf(store, 'a')).account.name).toBe('Account a');
    });

    it('throws AccountMissingError for an account that never existed or was deleted', async () => {
      await expect(store.accounts.update('nobody', () => 1)).rejects.toBeInstanceOf(AccountMissingError);
      await create(store, givenAccount('a'));
      await store.accounts.delete('a');
      await expect(store.accounts.update('a', () => 1)).rejects.toMatchObject({
        name: 'AccountMissingError',
        accountId: 'a',
      });
    });

    it('stores deliveries added through tx.addDeliveries together with the change, as copies', async () => {
      await create(store, givenAccount('a'));
      const d1 = givenDelivery('a', 'd1', { subscriptionId: 'sub-new' });
      await store.accounts.update('a', (doc, tx) => {
        indexedKeys.subscription.add(doc, 'sub-new');
        tx.addDeliveries([d1, givenDelivery('a', 'd2', { subscriptionId: 'sub-new', kind: 'confirmation' })]);
      });
      d1.state = 'failed'; // the caller's record is its own
      expect(await store.accounts.lookup('subscription', 'sub-new')).toBe('a');
      expect(await store.deliveries.get('a', 'd1')).toEqual(givenDelivery('a', 'd1', { subscriptionId: 'sub-new' }));
      const listed = await store.deliveries.list('a', { subscriptionId: 'sub-new', offset: 0, limit: 10 });
      expect(listed.total).toBe(2);
      expect(listed.items.map((d) => d.deliveryId)).toEqual(['d2', 'd1']);
      expect(await store.accounts.due(T0, 10)).toEqual(['a']);
    });

    it('a change written lazily (tx.writeLazily) is read back at once, and a later change keeps it', async () => {
      await create(store, givenAccount('a'));
      await store.accounts.update('a', (doc, tx) => {
        tx.writeLazily();
        doc.account.name = 'lazily renamed';
      });
      expect((await docOf(store, 'a')).account.name).toBe('lazily renamed');
      await store.accounts.update('a', (doc) => void doc.faults.push(givenFault('a', 'fault-a')));
      const after = await docOf(store, 'a');
      expect(after.account.name).toBe('lazily renamed');
      expect(after.faults.map((f) => f.faultId)).toEqual(['fault-a']);
    });

    it('create stores the deliveries given with the account', async () => {
      await create(store, givenAccount('a'), [
        givenDelivery('a', 'd1', { state: 'delivered' }),
        givenDelivery('a', 'd2'),
      ]);
      expect(
        (await store.deliveries.list('a', { offset: 0, limit: 10 })).items.map((d) => [d.deliveryId, d.state]),
      ).toEqual([
        ['d2', 'pending'],
        ['d1', 'delivered'],
      ]);
      expect(await store.deliveries.nextDueMs('a')).toBe(T0);
    });

    it('create returns false for an existing account id and leaves that account as it was', async () => {
      await create(store, givenAccount('a', { name: 'first' }));
      expect(await store.accounts.create(givenAccount('a', { name: 'second' }))).toBe(false);
      expect((await docOf(store, 'a')).account.name).toBe('first');
      expect(await store.accounts.count()).toBe(1);
    });
  });

  describe('concurrent read-modify-writes', () => {
    it('200 concurrent updates of one account each land, applied one at a time', async () => {
      await create(store, givenAccount('a'));
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          store.accounts.update('a', (doc) => {
            doc.faults.push(givenFault('a', `f${i}`));
            doc.rateLimit = { requests: (doc.rateLimit?.requests ?? 0) + 1, perSeconds: 60, anchorMs: T0 };
            return doc.faults.length;
          }),
        ),
      );
      const doc = await docOf(store, 'a');
      expect(doc.rateLimit?.requests).toBe(200);
      expect(new Set(doc.faults.map((f) => f.faultId))).toEqual(
        new Set(Array.from({ length: 200 }, (_, i) => `f${i}`)),
      );
      // Each change saw every change before it: the results are 1..200, each once.
      expect([...results].sort((x, y) => x - y)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    });

    it('concurrent updates of two accounts both land', async () => {
      await create(store, givenAccount('a'));
      await create(store, givenAccount('b'));
      await Promise.all(
        Array.from({ length: 200 }, (_, i) => {
          const id = i % 2 === 0 ? 'a' : 'b';
          return store.accounts.update(id, (doc) => void doc.faults.push(givenFault(id, `f${i}`)));
        }),
      );
      expect((await docOf(store, 'a')).faults).toHaveLength(100);
      expect((await docOf(store, 'b')).faults).toHaveLength(100);
    });

    it('concurrent updates adding deliveries and keys all land', async () => {
      await create(store, givenAccount('a'));
      await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          store.accounts.update('a', (doc, tx) => {
            indexedKeys.accessToken.add(doc, `token-${i}`);
            tx.addDeliveries([givenDelivery('a', `d${i}`)]);
          }),
        ),
      );
      expect((await store.deliveries.list('a', { offset: 0, limit: 100 })).total).toBe(50);
      for (let i = 0; i < 50; i++) expect(await store.accounts.lookup('accessToken', `token-${i}`)).toBe('a');
    });

    it('concurrent updates of one delivery each land', async () => {
      await create(store, givenAccount('a'), [givenDelivery('a', 'd')]);
      await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          store.deliveries.update(
            'a',
            'd',
            (d) => void d.attempts.push(givenAttempt({ at: iso(T0 + i), latencyMs: i })),
          ),
        ),
      );
      expect((await store.deliveries.get('a', 'd'))?.attempts.map((x) => x.latencyMs).sort((x, y) => x - y)).toEqual(
        Array.from({ length: 50 }, (_, i) => i),
      );
    });
  });

  describe('accounts.list and count', () => {
    it('pages through the accounts in creation order with a cursor', async () => {
      expect(await store.accounts.count()).toBe(0);
      expect(await store.accounts.list({ limit: 2 })).toEqual({ accounts: [], next: null });
      const ids = ['e', 'c', 'a', 'd', 'b'];
      for (const [i, id] of ids.entries())
        await create(store, givenAccount(id, { createdAtMs: T0 + i * 1000, origin: i % 2 ? 'generated' : 'fixture' }));
      expect(await store.accounts.count()).toBe(5);

      const seen: string[] = [];
      let after: string | undefined;
      let pages = 0;
      for (;;) {
        const page = await store.accounts.list(after === undefined ? { limit: 2 } : { after, limit: 2 });
        pages++;
        expect(page.accounts.length).toBeLessThanOrEqual(2);
        seen.push(...page.accounts.map((s) => s.accountId));
        if (page.next === null) break;
        after = page.next;
        if (pages > 5) throw new Error('the cursor never ends');
      }
      expect(seen).toEqual(ids);
      expect(pages).toBe(3);
    });

    it('summaries carry name, origin, creation time and last request, and follow updates', async () => {
      await create(store, givenAccount('a', { createdAtMs: T0, origin: 'generated', name: 'Ada' }));
      await store.accounts.update('a', (doc) => void (doc.account.name = 'Ada Lovelace'));
      await store.accounts.touch('a', T0 + 5);
      expect((await store.accounts.list({ limit: 10 })).accounts).toEqual([
        { accountId: 'a', name: 'Ada Lovelace', origin: 'generated', createdAt: iso(T0), lastSeenMs: T0 + 5 },
      ]);
    });

    it('count and list follow deletes', async () => {
      for (const [i, id] of ['a', 'b', 'c'].entries()) await create(store, givenAccount(id, { createdAtMs: T0 + i }));
      await store.accounts.delete('b');
      expect(await store.accounts.count()).toBe(2);
      expect((await store.accounts.list({ limit: 10 })).accounts.map((s) => s.accountId)).toEqual(['a', 'c']);
      const first = await store.accounts.list({ limit: 1 });
      expect(first.accounts.map((s) => s.accountId)).toEqual(['a']);
      expect(await store.accounts.list({ after: first.next!, limit: 10 })).toMatchObject({
        accounts: [{ accountId: 'c' }],
        next: null,
      });
    });

    it('a page after a cursor whose account was deleted meanwhile goes on after it, not from the start', async () => {
      for (const [i, id] of ['a', 'b', 'c', 'd'].entries())
        await create(store, givenAccount(id, { createdAtMs: T0 + i, origin: 'generated' }));
      const first = await store.accounts.list({ limit: 2 });
      expect(first.accounts.map((s) => s.accountId)).toEqual(['a', 'b']);
      // An idle-account sweep deletes the account the cursor points at, between two pages.
      await store.accounts.delete('b');
      const second = await store.accounts.list({ after: first.next!, limit: 2 });
      expect(second.accounts.map((s) => s.accountId)).toEqual(['c', 'd']);
      expect(second.next).toBeNull();
    });
  });

  describe('accounts.create with maxAccounts (MAX_ACCOUNTS)', () => {
    it('refuses with AccountsFullError once the store holds that many, even to creations made all at once', async () => {
      await create(store, givenAccount('a'));
      const outcomes = await Promise.allSettled(
        ['b', 'c', 'd', 'e', 'f'].map((id) => store.accounts.create(givenAccount(id), [], { maxAccounts: 3 })),
      );
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(2);
      const refusals = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
      expect(refusals).toHaveLength(3);
      for (const refusal of refusals) expect(refusal).toEqual(new AccountsFullError(3));
      expect(await store.accounts.count()).toBe(3);
    });

    it('a deleted account makes room; without maxAccounts nothing is refused', async () => {
      await create(store, givenAccount('a'));
      await create(store, givenAccount('b'));
      await expect(store.accounts.create(givenAccount('c'), [], { maxAccounts: 2 })).rejects.toThrow(AccountsFullError);
      expect(await store.accounts.get('c')).toBeNull();
      await store.accounts.delete('a');
      expect(await store.accounts.create(givenAccount('c'), [], { maxAccounts: 2 })).toBe(true);
      expect(await store.accounts.create(givenAccount('d'))).toBe(true);
    });
  });
}
