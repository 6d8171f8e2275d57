import { lifetimeCutoffMs } from '../../../src/store/derived.js';
import { LAST_REQUEST_RESOLUTION_MS, type Store } from '../../../src/store/store.js';
import { givenAccount, givenDelivery, givenJournalEntry, INDEX_KINDS, keyOf, T0 } from '../builders.js';
import { type ContractSuite, FAR } from './suite.js';

/** Account lifetimes: idle generated accounts, ACCOUNT_TTL, and what a delete removes. */
export function describeLifetimesContract(suite: ContractSuite): void {
  const { store, clock, create, docOf, openStore } = suite;

  describe('account lifetimes', () => {
    const HOUR = 3_600_000;

    it('idleSince lists generated accounts with no request since the instant, oldest first, never fixture accounts', async () => {
      await create(store, givenAccount('fixture', { origin: 'fixture', createdAtMs: T0 - 5 * HOUR }));
      await create(store, givenAccount('g1', { origin: 'generated', createdAtMs: T0 - 3 * HOUR }));
      await create(store, givenAccount('g2', { origin: 'generated', createdAtMs: T0 - 2 * HOUR }));
      await create(store, givenAccount('young', { origin: 'generated', createdAtMs: T0 }));
      expect(await store.accounts.idleSince(T0 - HOUR, 10)).toEqual(['g1', 'g2']);

      await store.accounts.touch('g1', T0 - HOUR / 2);
      await store.accounts.touch('fixture', T0 - 10 * HOUR);
      expect(await store.accounts.idleSince(T0 - HOUR, 10)).toEqual(['g2']);
      expect(await store.accounts.idleSince(T0 + 1, 10)).toEqual(['g2', 'g1', 'young']);
      expect(await store.accounts.idleSince(T0 + 1, 2)).toEqual(['g2', 'g1']);
      await expect(store.accounts.touch('nobody', T0)).resolves.toBeUndefined();
    });

    describe('with a lifetime (ACCOUNT_TTL)', () => {
      const LIFETIME_MS = 3000;
      /** The last moment an account last recorded at `lastMs` is still there: its lifetime, and the record's resolution, after. */
      const lastAliveMs = (lastMs: number): number => lastMs + LIFETIME_MS + LAST_REQUEST_RESOLUTION_MS;
      let lived: Store;
      const alive = async (accountId: string): Promise<boolean> => {
        const viaGet = (await lived.accounts.get(accountId)) !== null;
        const viaKey = (await lived.accounts.findByKey('apiKey', keyOf('apiKey', accountId))) !== null;
        expect(viaKey).toBe(viaGet);
        return viaGet;
      };

      beforeEach(async () => {
        lived = (await openStore({ accountLifetimeMs: LIFETIME_MS })).store;
      });

      it('a generated account reads as absent (get, findByKey) once its lifetime has passed since its creation, to the millisecond', async () => {
        await create(lived, givenAccount('g', { origin: 'generated', createdAtMs: T0 }));
        expect(await alive('g')).toBe(true);
        clock.set(new Date(lastAliveMs(T0)));
        expect(await alive('g')).toBe(true);
        clock.advance(1);
        expect(await alive('g')).toBe(false);
        // Only the reads: the index still names it, and the sweep finds it, until it is deleted.
        expect(await lived.accounts.lookup('apiKey', keyOf('apiKey', 'g'))).toBe('g');
        expect(await lived.accounts.idleSince(lifetimeCutoffMs(clock.now().getTime(), LIFETIME_MS), 10)).toEqual(['g']);
        expect(await lived.accounts.delete('g')).toBe(true);
        expect(await lived.accounts.lookup('apiKey', keyOf('apiKey', 'g'))).toBeNull();
      });

      it('counts from the last recorded request', async () => {
        await create(lived, givenAccount('g', { origin: 'generated', createdAtMs: T0 }));
        await lived.accounts.touch('g', T0 + 2500);
        clock.set(new Date(lastAliveMs(T0 + 2500)));
        expect(await alive('g')).toBe(true);
        expect(await lived.accounts.idleSince(lifetimeCutoffMs(clock.now().getTime(), LIFETIME_MS), 10)).toEqual([]);
        clock.advance(1);
        expect(await alive('g')).toBe(false);
        expect(await lived.accounts.idleSince(lifetimeCutoffMs(clock.now().getTime(), LIFETIME_MS), 10)).toEqual(['g']);
      });

      it('never ends a fixture account, and a lifetime of 0 ends none', async () => {
        await create(lived, givenAccount('f', { origin: 'fixture', createdAtMs: T0 }));
        await create(store, givenAccount('g', { origin: 'generated', createdAtMs: T0 }));
        clock.advance(10 * 365 * 24 * HOUR);
        expect(await alive('f')).toBe(true);
        expect(await store.accounts.get('g')).not.toBeNull();
      });

      it('still applies a write to an account past its lifetime (a request that began within it finishes)', async () => {
        await create(lived, givenAccount('g', { origin: 'generated', createdAtMs: T0 }));
        clock.set(new Date(lastAliveMs(T0) + 1));
        await lived.accounts.update('g', (doc) => {
          doc.account.name = 'renamed late';
        });
        expect(await lived.accounts.get('g')).toBeNull();
        await lived.accounts.touch('g', clock.now().getTime());
        expect((await lived.accounts.get('g'))?.account.name).toBe('renamed late');
      });
    });

    it('touch shows as lastSeenMs in the account list', async () => {
      await create(store, givenAccount('g1', { origin: 'generated' }));
      expect((await store.accounts.list({ limit: 10 })).accounts[0]?.lastSeenMs).toBeNull();
      await store.accounts.touch('g1', T0 + 42);
      expect((await store.accounts.list({ limit: 10 })).accounts[0]?.lastSeenMs).toBe(T0 + 42);
    });

    it('delete removes the document, its deliveries, journal and index entries, and leaves other accounts whole', async () => {
      await create(store, givenAccount('a', { origin: 'generated', createdAtMs: T0 - HOUR }), [
        givenDelivery('a', 'd1'),
      ]);
      await create(store, givenAccount('b'), [givenDelivery('b', 'd1')]);
      await store.journal.append('a', givenJournalEntry('a', 1));
      await store.journal.append('b', givenJournalEntry('b', 1));

      expect(await store.accounts.delete('a')).toBe(true);
      expect(await store.accounts.delete('a')).toBe(false);

      expect(await store.accounts.get('a')).toBeNull();
      expect(await store.deliveries.get('a', 'd1')).toBeNull();
      expect(await store.deliveries.list('a', { offset: 0, limit: 10 })).toEqual({ total: 0, items: [] });
      expect(await store.journal.list('a', 10)).toEqual([]);
      for (const kind of INDEX_KINDS) expect(await store.accounts.lookup(kind, keyOf(kind, 'a'))).toBeNull();
      expect(await store.accounts.count()).toBe(1);
      expect((await store.accounts.list({ limit: 10 })).accounts.map((s) => s.accountId)).toEqual(['b']);
      expect(await store.accounts.idleSince(FAR, 10)).toEqual([]);
      expect(await store.accounts.due(FAR, 10)).toEqual(['b']);

      for (const kind of INDEX_KINDS) expect(await store.accounts.lookup(kind, keyOf(kind, 'b'))).toBe('b');
      expect(await store.deliveries.get('b', 'd1')).not.toBeNull();
      expect(await store.journal.list('b', 10)).toHaveLength(1);
    });

    it('a deleted account can be created again, with nothing of its former self', async () => {
      await create(store, givenAccount('a'), [givenDelivery('a', 'old')]);
      await store.journal.append('a', givenJournalEntry('a', 1));
      await store.accounts.delete('a');
      await create(store, givenAccount('a', { withKeys: false, name: 'reborn' }));
      expect((await docOf(store, 'a')).account.name).toBe('reborn');
      expect(await store.deliveries.get('a', 'old')).toBeNull();
      expect(await store.journal.list('a', 10)).toEqual([]);
      expect(await store.accounts.lookup('apiKey', keyOf('apiKey', 'a'))).toBeNull();
    });
  });
}
