import { JOURNAL_LIMIT } from '../../../src/store/store.js';
import { eventually } from '../../helpers/waiting.js';
import { givenAccount, givenJournalEntry } from '../builders.js';
import type { ContractSuite } from './suite.js';

/** The request journal: newest first, bounded, per account, with announcements once an entry is stored. */
export function describeJournalContract(suite: ContractSuite): void {
  const { store, create } = suite;

  describe('journal', () => {
    it('lists entries newest first, up to the limit asked, per account', async () => {
      await create(store, givenAccount('a'));
      await create(store, givenAccount('b'));
      for (let i = 1; i <= 3; i++) await store.journal.append('a', givenJournalEntry('a', i));
      await store.journal.append('b', givenJournalEntry('b', 9));
      expect(await store.journal.list('a', 10)).toEqual([
        { ...givenJournalEntry('a', 3), seq: 3 },
        { ...givenJournalEntry('a', 2), seq: 2 },
        { ...givenJournalEntry('a', 1), seq: 1 },
      ]);
      expect(await store.journal.list('a', 2)).toEqual([
        { ...givenJournalEntry('a', 3), seq: 3 },
        { ...givenJournalEntry('a', 2), seq: 2 },
      ]);
      expect(await store.journal.list('b', 10)).toEqual([{ ...givenJournalEntry('b', 9), seq: 1 }]);
      expect(await store.journal.list('nobody', 10)).toEqual([]);
    });

    it(`keeps only the newest ${JOURNAL_LIMIT} entries`, async () => {
      await create(store, givenAccount('a'));
      const n = JOURNAL_LIMIT + 60;
      for (let i = 0; i < n; i++) await store.journal.append('a', givenJournalEntry('a', i));
      const listed = await store.journal.list('a', 10_000);
      expect(listed).toHaveLength(JOURNAL_LIMIT);
      expect(listed[0]).toEqual({ ...givenJournalEntry('a', n - 1), seq: n });
      expect(listed.at(-1)).toEqual({ ...givenJournalEntry('a', n - JOURNAL_LIMIT), seq: n - JOURNAL_LIMIT + 1 });
    });

    it('an append with an announcement publishes it once the entry is stored, and not for an account that is gone', async () => {
      await create(store, givenAccount('a'));
      const heard: unknown[] = [];
      await store.events.subscribe('journal-news', (message) => {
        heard.push(message);
      });
      // What the subscriber finds in the journal when the message arrives: the entry is there already.
      const seen: unknown[][] = [];
      await store.events.subscribe('journal-news', () => {
        void store.journal.list('a', 10).then((entries) => seen.push(entries));
      });
      await store.journal.append('nobody', givenJournalEntry('nobody', 1), {
        channel: 'journal-news',
        message: { about: 'nobody' },
      });
      await store.journal.append('a', givenJournalEntry('a', 1), {
        channel: 'journal-news',
        message: { about: 'a', n: 1 },
      });
      await eventually(() => seen.length === 1 || null);
      expect(heard).toEqual([{ about: 'a', n: 1 }]);
      expect(seen).toEqual([[{ ...givenJournalEntry('a', 1), seq: 1 }]]);
      expect(await store.journal.list('nobody', 10)).toEqual([]);
    });

    it("clear empties one account's journal, and appending goes on after it", async () => {
      await create(store, givenAccount('a'));
      await create(store, givenAccount('b'));
      await store.journal.append('a', givenJournalEntry('a', 1));
      await store.journal.append('b', givenJournalEntry('b', 1));
      await store.journal.clear('a');
      expect(await store.journal.list('a', 10)).toEqual([]);
      expect(await store.journal.list('b', 10)).toHaveLength(1);
      await store.journal.append('a', givenJournalEntry('a', 2));
      // Seqs never repeat: a reader that saw seq 1 before the clear knows the new entry is new.
      expect(await store.journal.list('a', 10)).toEqual([{ ...givenJournalEntry('a', 2), seq: 2 }]);
    });

    it('an account made again after a delete starts its seqs afresh', async () => {
      await create(store, givenAccount('a'));
      await store.journal.append('a', givenJournalEntry('a', 1));
      await store.journal.append('a', givenJournalEntry('a', 2));
      await store.accounts.delete('a');
      await create(store, givenAccount('a'));
      await store.journal.append('a', givenJournalEntry('a', 3));
      expect((await store.journal.list('a', 10)).map((e) => e.seq)).toEqual([1]);
    });
  });
}
