import { givenAccount, givenDelivery, T0 } from '../builders.js';
import { type ContractSuite, FAR } from './suite.js';

/** The due hints (accounts.due): which accounts have work due on the process clock, through their account clocks. */
export function describeDueContract(suite: ContractSuite): void {
  const { store, create } = suite;

  describe('accounts.due', () => {
    it('lists an account with a pending delivery from the instant it is due, not before', async () => {
      await create(store, givenAccount('a'), [givenDelivery('a', 'd1', { dueAtMs: T0 + 1000 })]);
      expect(await store.accounts.due(T0 + 999, 10)).toEqual([]);
      expect(await store.accounts.due(T0 + 1000, 10)).toEqual(['a']);
    });

    it('shifts the process-clock due time by the account clock offset, also when the offset changes later', async () => {
      await create(store, givenAccount('a'));
      await store.deliveries.add('a', [givenDelivery('a', 'd1', { dueAtMs: T0 + 7_200_000 + 1000 })]);
      expect(await store.accounts.due(T0 + 1000, 10)).toEqual([]);
      await store.accounts.update('a', (doc) => void (doc.clock.offsetMs = 7_200_000));
      expect(await store.accounts.due(T0 + 999, 10)).toEqual([]);
      expect(await store.accounts.due(T0 + 1000, 10)).toEqual(['a']);
    });

    it('a frozen clock already at the due time makes the work due at once', async () => {
      const doc = givenAccount('a');
      doc.clock = { offsetMs: 0, frozenAtMs: T0 + 86_400_000 };
      await create(store, doc, [givenDelivery('a', 'd1', { dueAtMs: T0 + 86_400_000 })]);
      expect(await store.accounts.due(T0, 10)).toEqual(['a']);
    });

    it('a frozen clock short of the due time never makes it due, until the clock is moved', async () => {
      const doc = givenAccount('a');
      doc.clock = { offsetMs: 0, frozenAtMs: T0 };
      await create(store, doc, [givenDelivery('a', 'd1', { dueAtMs: T0 + 5000 })]);
      expect(await store.accounts.due(FAR, 10)).toEqual([]);

      await store.accounts.update('a', (d) => void (d.clock.frozenAtMs = T0 + 5000));
      expect(await store.accounts.due(T0, 10)).toEqual(['a']);

      await store.accounts.update('a', (d) => void (d.clock = { offsetMs: -10_000, frozenAtMs: null }));
      expect(await store.accounts.due(T0 + 14_999, 10)).toEqual([]);
      expect(await store.accounts.due(T0 + 15_000, 10)).toEqual(['a']);
    });

    it('a running scenario run counts as work due at its step time; an ended run does not', async () => {
      await create(store, givenAccount('a'));
      const run = {
        runId: 'r1',
        accountId: 'a',
        scenario: 'leak',
        locationId: 'loc',
        startedAtMs: T0,
        nextStep: 0,
        totalSteps: 2,
        dueAtMs: T0 + 2000,
        state: 'running' as const,
        log: [],
        alertIds: {},
      };
      await store.accounts.update('a', (doc) => void doc.runs.push(run));
      expect(await store.accounts.due(T0 + 1999, 10)).toEqual([]);
      expect(await store.accounts.due(T0 + 2000, 10)).toEqual(['a']);
      await store.accounts.update('a', (doc) => void (doc.runs[0]!.state = 'completed'));
      expect(await store.accounts.due(FAR, 10)).toEqual([]);
    });

    it('accounts without work are not listed, and one stops being listed when its last pending delivery ends', async () => {
      await create(store, givenAccount('idle'));
      await create(store, givenAccount('busy'), [
        givenDelivery('busy', 'd1', { dueAtMs: T0 }),
        givenDelivery('busy', 'done', { state: 'delivered' }),
      ]);
      expect(await store.accounts.due(FAR, 10)).toEqual(['busy']);
      await store.deliveries.update('busy', 'd1', (d) => void Object.assign(d, { state: 'delivered', dueAtMs: null }));
      expect(await store.accounts.due(FAR, 10)).toEqual([]);
    });

    it('cancelPending and delete take an account off the list', async () => {
      await create(store, givenAccount('a'), [givenDelivery('a', 'd1', { subscriptionId: 's1', dueAtMs: T0 })]);
      await create(store, givenAccount('b'), [givenDelivery('b', 'd1', { dueAtMs: T0 })]);
      await store.deliveries.cancelPending('a', 's1', 'gone');
      expect(await store.accounts.due(FAR, 10)).toEqual(['b']);
      await store.accounts.delete('b');
      expect(await store.accounts.due(FAR, 10)).toEqual([]);
    });

    it('returns at most `limit` accounts', async () => {
      for (const id of ['a', 'b', 'c'])
        await create(store, givenAccount(id), [givenDelivery(id, 'd', { dueAtMs: T0 })]);
      const two = await store.accounts.due(T0, 2);
      expect(two).toHaveLength(2);
      expect(new Set([...two, ...(await store.accounts.due(T0, 10))])).toEqual(new Set(['a', 'b', 'c']));
    });
  });
}
