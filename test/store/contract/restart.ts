import {
  givenAccount,
  givenAttempt,
  givenDelivery,
  givenJournalEntry,
  INDEX_KINDS,
  indexedKeys,
  keyOf,
  T0,
} from '../builders.js';
import { givenSession, sessionApi } from './sessions.js';
import { type ContractSuite, claimDue } from './suite.js';

/** A restart (reopen) of a persistent backend keeps everything; a backend that is not persistent says so. */
export function describeRestartContract(suite: ContractSuite): void {
  const { create, docOf, openStore, current, capabilities } = suite;

  if (!capabilities.persistent) {
    it('says it is not persistent and offers no reopen', async () => {
      const opened = await openStore();
      expect(opened.store.persistent).toBe(false);
      expect(opened.reopen).toBeUndefined();
    });
    return;
  }

  describe('after a restart (reopen)', () => {
    it('everything stored is still there: documents, deliveries, journal, settings, sessions, look-ups, due hints, lifetimes', async () => {
      const opened = current[0]!;
      expect(opened.store.persistent).toBe(true);
      const s = opened.store;
      const a = givenAccount('a', { createdAtMs: T0 - 2000 });
      a.clock.offsetMs = 7_200_000;
      await create(s, a, [givenDelivery('a', 'done', { state: 'delivered' })]);
      await create(s, givenAccount('g', { origin: 'generated', createdAtMs: T0 - 1000 }));
      await create(s, givenAccount('gone'));
      await s.accounts.update('a', (doc, tx) => {
        indexedKeys.apiKey.add(doc, 'added-key');
        indexedKeys.email.remove(doc, keyOf('email', 'a'));
        doc.runs.push({
          runId: 'r1',
          accountId: 'a',
          scenario: 's',
          locationId: 'l',
          startedAtMs: T0,
          nextStep: 1,
          totalSteps: 3,
          dueAtMs: T0 + 7_200_000 + 60_000,
          state: 'running',
          log: [],
          alertIds: {},
        });
        tx.addDeliveries([givenDelivery('a', 'waiting', { dueAtMs: T0 + 7_200_000 + 1000 })]);
      });
      await s.deliveries.update(
        'a',
        'waiting',
        (d) => void d.attempts.push(givenAttempt({ latencyMs: 9, responseExcerpt: 'oops', warnings: ['w'] })),
      );
      await s.deliveries.add('a', [givenDelivery('a', 'failed', { state: 'failed' })]);
      for (let i = 0; i < 5; i++) await s.journal.append('a', givenJournalEntry('a', i));
      await s.accounts.touch('g', T0 - 500);
      await s.accounts.delete('gone');
      await s.settings.set('sessionSecret', 'secret');
      await sessionApi(s).set('sid-1', givenSession('u1'));

      const docBefore = await docOf(s, 'a');
      const deliveriesBefore = await s.deliveries.list('a', { offset: 0, limit: 100 });
      const listBefore = await s.accounts.list({ limit: 10 });

      const r = await opened.reopen!();

      expect(await docOf(r, 'a')).toEqual(docBefore);
      expect(await r.deliveries.list('a', { offset: 0, limit: 100 })).toEqual(deliveriesBefore);
      expect(deliveriesBefore.items.map((d) => [d.deliveryId, d.state])).toEqual([
        ['failed', 'failed'],
        ['waiting', 'pending'],
        ['done', 'delivered'],
      ]);
      expect(await r.journal.list('a', 10)).toEqual(
        [4, 3, 2, 1, 0].map((i) => ({ ...givenJournalEntry('a', i), seq: i + 1 })),
      );
      expect(await r.settings.get('sessionSecret')).toBe('secret');
      expect(await sessionApi(r).get('sid-1')).toEqual(givenSession('u1'));
      expect(await r.accounts.list({ limit: 10 })).toEqual(listBefore);
      expect(await r.accounts.count()).toBe(2);
      expect(await r.accounts.get('gone')).toBeNull();

      expect(await r.accounts.lookup('apiKey', 'added-key')).toBe('a');
      expect(await r.accounts.lookup('email', keyOf('email', 'a'))).toBeNull();
      for (const kind of INDEX_KINDS) {
        if (kind !== 'email') expect(await r.accounts.lookup(kind, keyOf(kind, 'a'))).toBe('a');
        expect(await r.accounts.lookup(kind, keyOf(kind, 'g'))).toBe('g');
        expect(await r.accounts.lookup(kind, keyOf(kind, 'gone'))).toBeNull();
      }

      expect(await r.accounts.due(T0 + 999, 10)).toEqual([]);
      expect(await r.accounts.due(T0 + 1000, 10)).toEqual(['a']);
      expect(await r.deliveries.nextDueMs('a')).toBe(T0 + 7_200_000 + 1000);
      expect((await claimDue(r, 'a', T0 + 7_200_000 + 1000, 'x', 60_000, 10)).map((d) => d.deliveryId)).toEqual([
        'waiting',
      ]);
      expect(await r.accounts.idleSince(T0, 10)).toEqual(['g']);
      expect(await r.accounts.idleSince(T0 - 500, 10)).toEqual([]);

      // And it goes on working.
      await r.accounts.update('a', (doc) => indexedKeys.apiKey.add(doc, 'after-restart'));
      expect(await r.accounts.lookup('apiKey', 'after-restart')).toBe('a');
    });

    it('a change written lazily (tx.writeLazily) is there after a restart', async () => {
      const opened = current[0]!;
      await create(opened.store, givenAccount('a'));
      await opened.store.accounts.update('a', (doc, tx) => {
        tx.writeLazily();
        doc.account.name = 'lazily renamed';
      });
      const r = await opened.reopen!();
      expect((await docOf(r, 'a')).account.name).toBe('lazily renamed');
    });

    it('a delivery changed after its account was written reads back changed: replaced by an update, or ended by cancelPending', async () => {
      const opened = current[0]!;
      const s = opened.store;
      await create(s, givenAccount('a'), [
        givenDelivery('a', 'kept', { subscriptionId: 's2' }),
        givenDelivery('a', 'updated', { subscriptionId: 's2' }),
        givenDelivery('a', 'cancelled', { subscriptionId: 's1' }),
      ]);
      // Each write holds every record; the next ones change two of them after they were written.
      await s.deliveries.add('a', [givenDelivery('a', 'later', { subscriptionId: 's2' })]);
      await s.deliveries.update('a', 'updated', (d) => void d.attempts.push(givenAttempt({ latencyMs: 12 })));
      expect(await s.deliveries.cancelPending('a', 's1', 'subscription deleted')).toBe(1);
      const before = await s.deliveries.list('a', { offset: 0, limit: 10 });
      expect(before.items.map((d) => [d.deliveryId, d.state, d.attempts.length])).toEqual([
        ['later', 'pending', 0],
        ['cancelled', 'failed', 0],
        ['updated', 'pending', 1],
        ['kept', 'pending', 0],
      ]);
      const r = await opened.reopen!();
      expect(await r.deliveries.list('a', { offset: 0, limit: 10 })).toEqual(before);
    });

    it('a second restart keeps changes made after the first one', async () => {
      const opened = current[0]!;
      await create(opened.store, givenAccount('a'));
      const first = await opened.reopen!();
      await first.accounts.update('a', (doc) => void (doc.account.name = 'renamed'));
      await first.deliveries.add('a', [givenDelivery('a', 'd1')]);
      await first.journal.append('a', givenJournalEntry('a', 1));
      const second = await opened.reopen!();
      expect((await docOf(second, 'a')).account.name).toBe('renamed');
      expect((await second.deliveries.get('a', 'd1'))?.state).toBe('pending');
      expect(await second.journal.list('a', 10)).toEqual([{ ...givenJournalEntry('a', 1), seq: 1 }]);
      expect((await second.accounts.list({ limit: 10 })).accounts[0]?.name).toBe('renamed');
    });
  });
}
