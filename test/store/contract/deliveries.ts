import type { DeliveryRecord } from '../../../src/store/data.js';
import type { Store } from '../../../src/store/store.js';
import { eventually } from '../../helpers/waiting.js';
import { givenAccount, givenAttempt, givenDelivery, T0 } from '../builders.js';
import { type ContractSuite, claimDue, FAR, logSlack } from './suite.js';

/** The delivery log and queue: listing, changes, claims and their leases, cancelling, clearing and trimming. */
export function describeDeliveriesContract(suite: ContractSuite): void {
  const { store, create, openStore } = suite;

  describe('deliveries', () => {
    beforeEach(async () => {
      await create(store, givenAccount('a'));
    });

    it('get returns an added delivery as it was added, and null for an unknown id or account', async () => {
      const record = givenDelivery('a', 'd1', { kind: 'confirmation', subscriptionId: 's9', locationId: 'l9' });
      await store.deliveries.add('a', [record]);
      expect(await store.deliveries.get('a', 'd1')).toEqual(record);
      expect(await store.deliveries.get('a', 'nope')).toBeNull();
      expect(await store.deliveries.get('nobody', 'd1')).toBeNull();
    });

    it('list is newest first, filters by subscription, location, state and kind, pages by offset and limit, and counts every match', async () => {
      await store.deliveries.add('a', [
        givenDelivery('a', 'd1', { subscriptionId: 's1', locationId: 'l1', state: 'delivered', kind: 'confirmation' }),
        givenDelivery('a', 'd2', { subscriptionId: 's1', locationId: 'l1', state: 'failed', kind: 'alert' }),
        givenDelivery('a', 'd3', { subscriptionId: 's2', locationId: 'l2', state: 'pending', kind: 'alert' }),
      ]);
      await store.deliveries.add('a', [
        givenDelivery('a', 'd4', { subscriptionId: 's1', locationId: 'l2', state: 'delivered', kind: 'alert' }),
        givenDelivery('a', 'd5', { subscriptionId: null, locationId: null, state: 'delivered', kind: 'token' }),
      ]);
      const ids = async (query: Partial<Parameters<Store['deliveries']['list']>[1]>): Promise<[number, string[]]> => {
        const { total, items } = await store.deliveries.list('a', { offset: 0, limit: 100, ...query });
        return [total, items.map((d) => d.deliveryId)];
      };
      expect(await ids({})).toEqual([5, ['d5', 'd4', 'd3', 'd2', 'd1']]);
      expect(await ids({ subscriptionId: 's1' })).toEqual([3, ['d4', 'd2', 'd1']]);
      expect(await ids({ locationId: 'l2' })).toEqual([2, ['d4', 'd3']]);
      expect(await ids({ state: 'delivered' })).toEqual([3, ['d5', 'd4', 'd1']]);
      expect(await ids({ kind: 'alert' })).toEqual([3, ['d4', 'd3', 'd2']]);
      expect(await ids({ subscriptionId: 's1', kind: 'alert', state: 'delivered' })).toEqual([1, ['d4']]);
      expect(await ids({ offset: 1, limit: 2 })).toEqual([5, ['d4', 'd3']]);
      expect(await ids({ kind: 'alert', offset: 2, limit: 5 })).toEqual([3, ['d2']]);
      expect(await ids({ offset: 10, limit: 5 })).toEqual([5, []]);
      expect(await ids({ subscriptionId: 'none' })).toEqual([0, []]);
    });

    it('list of an account without deliveries, or of no account, is empty', async () => {
      expect(await store.deliveries.list('a', { offset: 0, limit: 10 })).toEqual({ total: 0, items: [] });
      expect(await store.deliveries.list('nobody', { offset: 0, limit: 10 })).toEqual({ total: 0, items: [] });
    });

    it('update gives the change a copy, stores what it did and returns its result; null when the delivery is unknown', async () => {
      await store.deliveries.add('a', [givenDelivery('a', 'd1')]);
      let seen: DeliveryRecord | undefined;
      const result = await store.deliveries.update('a', 'd1', (d) => {
        d.state = 'delivered';
        d.dueAtMs = null;
        seen = d;
        return 'done';
      });
      expect(result).toBe('done');
      seen!.state = 'failed';
      expect((await store.deliveries.get('a', 'd1'))?.state).toBe('delivered');
      expect(await store.deliveries.update('a', 'nope', () => 'x')).toBeNull();
      expect(await store.deliveries.update('nobody', 'd1', () => 'x')).toBeNull();
    });

    it('update whose change throws rejects and stores nothing', async () => {
      await store.deliveries.add('a', [givenDelivery('a', 'd1')]);
      await expect(
        store.deliveries.update('a', 'd1', (d) => {
          d.state = 'failed';
          throw new Error('no');
        }),
      ).rejects.toThrow('no');
      expect(await store.deliveries.get('a', 'd1')).toEqual(givenDelivery('a', 'd1'));
    });

    it('claimDue takes only pending deliveries due at the given virtual now, oldest due first, up to the limit', async () => {
      // Each of its own subscription: one subscription's deliveries go one at a time (the next test).
      await store.deliveries.add('a', [
        givenDelivery('a', 'late', { dueAtMs: T0 + 3000, subscriptionId: 's1' }),
        givenDelivery('a', 'second', { dueAtMs: T0 + 1000, subscriptionId: 's2' }),
        givenDelivery('a', 'first', { dueAtMs: T0 + 500, subscriptionId: 's3' }),
        givenDelivery('a', 'exactly-now', { dueAtMs: T0 + 2000, subscriptionId: 's4' }),
        { ...givenDelivery('a', 'finished', { state: 'failed' }), dueAtMs: T0 },
        givenDelivery('a', 'unscheduled', { dueAtMs: null }),
      ]);
      expect((await claimDue(store, 'a', T0 + 2000, 'one', 60_000, 2)).map((d) => d.deliveryId)).toEqual([
        'first',
        'second',
      ]);
      expect((await claimDue(store, 'a', T0 + 2000, 'one', 60_000, 10)).map((d) => d.deliveryId)).toEqual([
        'exactly-now',
      ]);
      expect(await claimDue(store, 'a', T0 + 2000, 'one', 60_000, 10)).toEqual([]);
      expect(await claimDue(store, 'nobody', T0 + 2000, 'one', 60_000, 10)).toEqual([]);
    });

    it("due gives one subscription's deliveries one at a time: its oldest due, and none while one of them is claimed", async () => {
      await store.deliveries.add('a', [
        givenDelivery('a', 'start', { dueAtMs: T0, subscriptionId: 's1' }),
        givenDelivery('a', 'other', { dueAtMs: T0, subscriptionId: 's2' }),
        givenDelivery('a', 'escalation', { dueAtMs: T0, subscriptionId: 's1' }),
        givenDelivery('a', 'token-1', { dueAtMs: T0, subscriptionId: null, kind: 'token' }),
        givenDelivery('a', 'token-2', { dueAtMs: T0, subscriptionId: null, kind: 'token' }),
        givenDelivery('a', 'end', { dueAtMs: T0, subscriptionId: 's1' }),
      ]);
      const ids = async (): Promise<string[]> => (await store.deliveries.due('a', T0, 10)).map((d) => d.deliveryId);
      // Deliveries of no subscription (OAuth's) are never held back.
      expect(await ids()).toEqual(['start', 'other', 'token-1', 'token-2']);
      expect(await store.deliveries.claim('a', 'start', 'replica-1', 60_000)).toBe(true);
      expect(await ids()).toEqual(['other', 'token-1', 'token-2']);
      // Its attempt failed and is retried later: the next one of s1 may go now.
      await store.deliveries.update('a', 'start', (d) => {
        d.attempts.push(givenAttempt({ statusCode: 503 }));
        d.dueAtMs = T0 + 5000;
      });
      expect(await ids()).toEqual(['other', 'escalation', 'token-1', 'token-2']);
      await store.deliveries.update('a', 'escalation', (d) => {
        d.state = 'delivered';
        d.dueAtMs = null;
      });
      expect(await ids()).toEqual(['other', 'token-1', 'token-2', 'end']);
      // Oldest due first: when the retry falls due, the one due before it still goes first.
      const at5s = async (): Promise<string[]> =>
        (await store.deliveries.due('a', T0 + 5000, 10)).map((d) => d.deliveryId);
      expect(await at5s()).toEqual(['other', 'token-1', 'token-2', 'end']);
      await store.deliveries.update('a', 'end', (d) => {
        d.state = 'delivered';
        d.dueAtMs = null;
      });
      expect(await at5s()).toEqual(['other', 'token-1', 'token-2', 'start']);
    });

    it('a claimed delivery is not claimed by another owner until it is updated', async () => {
      await store.deliveries.add('a', [givenDelivery('a', 'd1', { dueAtMs: T0 })]);
      const claimed = await claimDue(store, 'a', T0, 'replica-1', 60_000, 10);
      expect(claimed).toEqual([givenDelivery('a', 'd1', { dueAtMs: T0 })]);
      expect(await claimDue(store, 'a', T0 + 10_000, 'replica-2', 60_000, 10)).toEqual([]);

      // The attempt failed and is retried later: the update ends the claim.
      await store.deliveries.update('a', 'd1', (d) => {
        d.attempts.push(givenAttempt({ statusCode: 503, latencyMs: 3 }));
        d.dueAtMs = T0 + 5000;
      });
      expect(await claimDue(store, 'a', T0 + 4999, 'replica-2', 60_000, 10)).toEqual([]);
      expect(
        (await claimDue(store, 'a', T0 + 5000, 'replica-2', 60_000, 10)).map((d) => [d.deliveryId, d.attempts.length]),
      ).toEqual([['d1', 1]]);
    });

    it("due leaves out the deliveries to the origins it is told to skip, so a full origin's backlog never hides another's", async () => {
      const to = (target: string, id: string, dueAtMs: number): DeliveryRecord => ({
        ...givenDelivery('a', id, { dueAtMs, subscriptionId: id }),
        target,
      });
      await store.deliveries.add('a', [
        to('https://slow.example/hooks/1', 'slow-1', T0),
        to('https://slow.example:443/hooks/2', 'slow-2', T0 + 1),
        to('http://slow.example/hooks/3', 'other-scheme', T0 + 2),
        to('https://healthy.example/hooks', 'healthy', T0 + 3),
      ]);
      const ids = async (skip?: string[]): Promise<string[]> =>
        (await store.deliveries.due('a', T0 + 10, 2, skip)).map((d) => d.deliveryId);
      expect(await ids()).toEqual(['slow-1', 'slow-2']);
      expect(await ids([])).toEqual(['slow-1', 'slow-2']);
      expect(await ids(['https://slow.example'])).toEqual(['other-scheme', 'healthy']);
      expect(await ids(['https://slow.example', 'http://slow.example'])).toEqual(['healthy']);
      // Its origin is the record's as stored, also after an update.
      await store.deliveries.update('a', 'healthy', (d) => void d.attempts.push(givenAttempt({ error: 'HTTP 500' })));
      expect(await ids(['https://slow.example', 'http://slow.example'])).toEqual(['healthy']);
      expect(await ids(['https://healthy.example', 'https://slow.example', 'http://slow.example'])).toEqual([]);
    });

    it('a claim is exclusive, even for its own owner, and release hands it back without an attempt', async () => {
      await store.deliveries.add('a', [givenDelivery('a', 'd1', { dueAtMs: T0 })]);
      expect(await store.deliveries.claim('a', 'd1', 'replica-1', 60_000)).toBe(true);
      expect(await store.deliveries.claim('a', 'd1', 'replica-1', 60_000)).toBe(false);
      expect(await store.deliveries.claim('a', 'd1', 'replica-2', 60_000)).toBe(false);
      expect(await store.deliveries.due('a', T0, 10)).toEqual([]);
      await store.deliveries.release('a', 'd1', 'replica-2');
      expect(await store.deliveries.claim('a', 'd1', 'replica-2', 60_000)).toBe(false);
      await store.deliveries.release('a', 'd1', 'replica-1');
      expect((await store.deliveries.due('a', T0, 10)).map((d) => d.deliveryId)).toEqual(['d1']);
      expect(await store.deliveries.claim('a', 'd1', 'replica-2', 60_000)).toBe(true);
      expect(await store.deliveries.claim('a', 'unknown', 'replica-2', 60_000)).toBe(false);
    });

    it('a claim with dueByMs takes only a delivery due by then on the account clock (a candidate rescheduled meanwhile is left)', async () => {
      await store.deliveries.add('a', [
        givenDelivery('a', 'd1', { dueAtMs: T0 + 1000 }),
        givenDelivery('a', 'unscheduled', { dueAtMs: null }),
      ]);
      expect(await store.deliveries.claim('a', 'd1', 'one', 60_000, T0 + 999)).toBe(false);
      expect(await store.deliveries.claim('a', 'unscheduled', 'one', 60_000, FAR)).toBe(false);
      expect(await store.deliveries.claim('a', 'd1', 'one', 60_000, T0 + 1000)).toBe(true);
    });

    it('queue counts the deliveries due now over the accounts with work due, and when the longest-waiting account fell due', async () => {
      expect(await store.deliveries.queue(T0)).toEqual({ dueDeliveries: 0, dueAccounts: 0, oldestDueMs: null });
      await store.deliveries.add('a', [
        givenDelivery('a', 'd1', { dueAtMs: T0 - 5000 }),
        givenDelivery('a', 'd2', { dueAtMs: T0 }),
        givenDelivery('a', 'later', { dueAtMs: T0 + 60_000 }),
      ]);
      const shifted = givenAccount('b');
      shifted.clock.offsetMs = 3_600_000;
      await create(store, shifted, [givenDelivery('b', 'd1', { dueAtMs: T0 + 3_600_000 - 1000 })]);
      const frozen = givenAccount('c');
      frozen.clock = { offsetMs: 0, frozenAtMs: T0 + 10 };
      await create(store, frozen, [givenDelivery('c', 'd1', { dueAtMs: T0 + 10 })]);
      // Claimed deliveries still wait in the queue until they are recorded.
      expect(await store.deliveries.claim('a', 'd2', 'x', 60_000)).toBe(true);
      expect(await store.deliveries.queue(T0)).toEqual({ dueDeliveries: 4, dueAccounts: 3, oldestDueMs: T0 - 5000 });
      expect(await store.deliveries.queue(T0 - 5001)).toEqual({ dueDeliveries: 1, dueAccounts: 1, oldestDueMs: null });
    });

    it('a claim whose lease ended (the claimer died) is handed on to another owner', async () => {
      await store.deliveries.add('a', [givenDelivery('a', 'd1', { dueAtMs: T0 })]);
      expect(await claimDue(store, 'a', T0, 'dies', 50, 10)).toHaveLength(1);
      const handedOn = await eventually(async () => {
        const claimed = await claimDue(store, 'a', T0, 'survivor', 60_000, 10);
        return claimed.length > 0 ? claimed : null;
      });
      expect(handedOn.map((d) => d.deliveryId)).toEqual(['d1']);
    });

    it("nextDueMs is the earliest pending delivery's due time on the account clock, or null", async () => {
      expect(await store.deliveries.nextDueMs('a')).toBeNull();
      await store.deliveries.add('a', [
        givenDelivery('a', 'd1', { dueAtMs: T0 + 900 }),
        givenDelivery('a', 'd2', { dueAtMs: T0 + 300 }),
        { ...givenDelivery('a', 'd3', { state: 'delivered' }), dueAtMs: T0 },
      ]);
      expect(await store.deliveries.nextDueMs('a')).toBe(T0 + 300);
      await store.deliveries.update('a', 'd2', (d) => void Object.assign(d, { state: 'delivered', dueAtMs: null }));
      expect(await store.deliveries.nextDueMs('a')).toBe(T0 + 900);
      await store.deliveries.update('a', 'd1', (d) => void Object.assign(d, { state: 'failed', dueAtMs: null }));
      expect(await store.deliveries.nextDueMs('a')).toBeNull();
      expect(await store.deliveries.nextDueMs('nobody')).toBeNull();
    });

    it("cancelPending fails the subscription's pending deliveries with the note and leaves the rest", async () => {
      await store.deliveries.add('a', [
        givenDelivery('a', 'p1', { subscriptionId: 's1', dueAtMs: T0 }),
        givenDelivery('a', 'p2', { subscriptionId: 's1', dueAtMs: T0 + 10 }),
        givenDelivery('a', 'done', { subscriptionId: 's1', state: 'delivered' }),
        givenDelivery('a', 'other', { subscriptionId: 's2', dueAtMs: T0 + 20 }),
      ]);
      expect(await store.deliveries.cancelPending('a', 's1', 'subscription deleted')).toBe(2);

      for (const id of ['p1', 'p2'])
        expect(await store.deliveries.get('a', id)).toMatchObject({
          state: 'failed',
          note: 'subscription deleted',
          dueAtMs: null,
        });
      expect(await store.deliveries.get('a', 'done')).toEqual(
        givenDelivery('a', 'done', { subscriptionId: 's1', state: 'delivered' }),
      );
      expect((await store.deliveries.get('a', 'other'))?.state).toBe('pending');
      expect(await store.deliveries.nextDueMs('a')).toBe(T0 + 20);
      expect((await claimDue(store, 'a', FAR, 'x', 60_000, 10)).map((d) => d.deliveryId)).toEqual(['other']);
      expect(await store.deliveries.cancelPending('a', 's1', 'again')).toBe(0);
    });

    it('remove takes the named deliveries out of the log in any state, with their due work and claims, and leaves the rest', async () => {
      await create(store, givenAccount('b'), [givenDelivery('b', 'b1')]);
      await store.deliveries.add('a', [
        givenDelivery('a', 'kept', { state: 'delivered' }),
        givenDelivery('a', 'waiting', { dueAtMs: T0 + 50 }),
        givenDelivery('a', 'claimed', { dueAtMs: T0 }),
        givenDelivery('a', 'done', { state: 'failed' }),
        givenDelivery('a', 'later', { dueAtMs: T0 + 500 }),
      ]);
      expect(await store.deliveries.claim('a', 'claimed', 'x', 60_000)).toBe(true);

      expect(await store.deliveries.remove('a', ['waiting', 'claimed', 'done', 'unknown', 'b1'])).toBe(3);

      const { total, items } = await store.deliveries.list('a', { offset: 0, limit: 10 });
      expect([total, items.map((d) => d.deliveryId)]).toEqual([2, ['later', 'kept']]);
      expect(await store.deliveries.get('a', 'claimed')).toBeNull();
      expect(await store.deliveries.nextDueMs('a')).toBe(T0 + 500);
      expect((await claimDue(store, 'a', FAR, 'y', 60_000, 10)).map((d) => d.deliveryId)).toEqual(['later']);
      expect(await store.deliveries.get('b', 'b1')).not.toBeNull();
      expect(await store.deliveries.remove('a', [])).toBe(0);
      expect(await store.deliveries.remove('nobody', ['kept'])).toBe(0);

      await store.deliveries.remove('a', ['later']);
      expect(await store.deliveries.nextDueMs('a')).toBeNull();
      expect(await store.accounts.due(FAR, 10)).toEqual(['b']);
    });

    it("clear forgets the account's whole log and its due work, and no other account's", async () => {
      await create(store, givenAccount('b'), [givenDelivery('b', 'b1')]);
      await store.deliveries.add('a', [givenDelivery('a', 'd1'), givenDelivery('a', 'd2', { state: 'delivered' })]);
      await store.deliveries.clear('a');
      expect(await store.deliveries.list('a', { offset: 0, limit: 10 })).toEqual({ total: 0, items: [] });
      expect(await store.deliveries.get('a', 'd1')).toBeNull();
      expect(await store.deliveries.nextDueMs('a')).toBeNull();
      expect(await store.accounts.due(FAR, 10)).toEqual(['b']);
      expect((await store.deliveries.list('b', { offset: 0, limit: 10 })).total).toBe(1);
    });

    it('keeps the newest deliveryLogLimit finished deliveries (plus the slack), trims the oldest, and keeps every pending one', async () => {
      const limit = 10;
      const s = (await openStore({ deliveryLogLimit: limit })).store;
      // Pending deliveries older than everything else: they must survive every trim.
      await create(
        s,
        givenAccount('a'),
        Array.from({ length: 5 }, (_, i) => givenDelivery('a', `waiting-${i}`, { dueAtMs: T0 + 1e9 })),
      );
      const finishedIds: string[] = [];
      for (let i = 0; i < 40; i++) {
        const id = `d${String(i).padStart(2, '0')}`;
        await s.deliveries.add('a', [givenDelivery('a', id)]);
        await s.deliveries.update(
          'a',
          id,
          (d) => void Object.assign(d, { state: i % 3 === 0 ? 'failed' : 'delivered', dueAtMs: null }),
        );
        finishedIds.push(id);
        const { total } = await s.deliveries.list('a', { state: 'delivered', offset: 0, limit: 100 });
        const { total: failed } = await s.deliveries.list('a', { state: 'failed', offset: 0, limit: 100 });
        expect(total + failed).toBeLessThanOrEqual(limit + logSlack(limit));
      }
      const { items } = await s.deliveries.list('a', { offset: 0, limit: 100 });
      const kept = items.filter((d) => d.state !== 'pending').map((d) => d.deliveryId);
      expect(kept.length).toBeGreaterThanOrEqual(limit);
      expect(kept.length).toBeLessThanOrEqual(limit + logSlack(limit));
      // The newest ones, newest first: trimming went oldest first.
      expect(kept).toEqual(finishedIds.slice(-kept.length).reverse());
      expect(items.filter((d) => d.state === 'pending').map((d) => d.deliveryId)).toEqual([
        'waiting-4',
        'waiting-3',
        'waiting-2',
        'waiting-1',
        'waiting-0',
      ]);
      expect(await s.deliveries.get('a', 'd00')).toBeNull();
      expect(await s.deliveries.get('a', 'waiting-0')).not.toBeNull();
    });
  });
}
