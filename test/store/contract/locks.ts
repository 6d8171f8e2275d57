import type { Store } from '../../../src/store/store.js';
import { deferred, eventually, turns, withDeadline } from '../../helpers/waiting.js';
import type { ContractSuite, StoreContractOptions } from './suite.js';

/** Locks: one holder at a time, in one process and across replicas, with lifetimes for holders that die. */
export function describeLocksContract(suite: ContractSuite): void {
  const { store, openStore } = suite;

  describe('locks', () => {
    it('withLock runs one holder at a time and returns what fn returns', async () => {
      let active = 0;
      let most = 0;
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          store.locks.withLock('job', async () => {
            active++;
            most = Math.max(most, active);
            await turns(3);
            active--;
            return i;
          }),
        ),
      );
      expect(most).toBe(1);
      expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i));
    });

    it('withLock passes on a rejection and frees the lock', async () => {
      await expect(store.locks.withLock('job', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
      await expect(withDeadline(store.locks.withLock('job', () => Promise.resolve('next')))).resolves.toBe('next');
    });

    it('locks of different names do not wait for each other', async () => {
      const gate = deferred();
      const a = store.locks.withLock('a', () => gate.promise);
      await expect(withDeadline(store.locks.withLock('b', () => Promise.resolve('b ran')))).resolves.toBe('b ran');
      gate.resolve();
      await a;
    });

    it('tryLock returns null while the lock is held, and a withLock waits for its release', async () => {
      const release = await store.locks.tryLock('sweep', 60_000);
      expect(release).not.toBeNull();
      expect(await store.locks.tryLock('sweep', 60_000)).toBeNull();
      expect(await store.locks.tryLock('other', 60_000)).not.toBeNull();

      const order: string[] = [];
      const waiting = store.locks.withLock('sweep', () => Promise.resolve(void order.push('withLock ran')));
      await turns(5);
      order.push('released');
      await release!();
      await withDeadline(waiting);
      expect(order).toEqual(['released', 'withLock ran']);
      const again = await store.locks.tryLock('sweep', 60_000);
      expect(again).not.toBeNull();
      await again!();
    });

    // A lock's lifetime, short enough to wait out (locks live in real time in every backend),
    // long enough that a renewal every third of it is never late on a busy machine.
    const LOCK_LIFE_MS = 600;
    /** The store and the one that plays another replica next to it (itself, for a backend without replicas). */
    const twoReplicas = async (options: Partial<StoreContractOptions> = {}): Promise<[Store, Store]> => {
      const opened = await openStore(options);
      return [opened.store, opened.peer ? await opened.peer() : opened.store];
    };
    /** Waits until `holder` has taken `name` through withLock (the other replica cannot take it). */
    const heldBy = (other: Store, name: string): Promise<true> =>
      eventually(async () => {
        const release = await other.locks.tryLock(name, 60_000);
        if (release === null) return true;
        await release();
        return null;
      });

    it('withLock keeps the lock past its lifetime while fn runs (it renews it): the other replica cannot take it meanwhile', async () => {
      const [holder, other] = await twoReplicas({ lockTtlMs: LOCK_LIFE_MS });
      const gate = deferred();
      const holding = holder.locks.withLock('clock', () => gate.promise);
      await heldBy(other, 'clock');
      const since = performance.now();
      // Real time has to pass here: the lifetime is a Redis TTL.
      while (performance.now() - since < 2.5 * LOCK_LIFE_MS) {
        expect(await other.locks.tryLock('clock', 60_000)).toBeNull();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      gate.resolve();
      await holding;
      const after = await other.locks.tryLock('clock', 60_000);
      expect(after).not.toBeNull();
      await after!();
    });

    it('a tryLock holder that never releases (it died) loses the lock after its lifetime, not before', async () => {
      const [dying, other] = await twoReplicas();
      const before = performance.now();
      expect(await dying.locks.tryLock('sweep', LOCK_LIFE_MS)).not.toBeNull();
      expect(await other.locks.tryLock('sweep', 60_000)).toBeNull();
      const release = await eventually(() => other.locks.tryLock('sweep', 60_000), 10_000);
      expect(performance.now() - before).toBeGreaterThanOrEqual(LOCK_LIFE_MS - 20);
      await release();
    });

    it("only the holder releases a lock: a late release by a holder whose lock expired leaves the next holder's lock", async () => {
      const [late, other] = await twoReplicas();
      const releaseLate = await late.locks.tryLock('job', LOCK_LIFE_MS);
      const releaseNext = await eventually(() => other.locks.tryLock('job', 60_000), 10_000);
      await releaseLate!();
      // Still the next holder's: not even the late holder's replica can take it now.
      expect(await late.locks.tryLock('job', 60_000)).toBeNull();
      await releaseNext();
      const free = await late.locks.tryLock('job', 60_000);
      expect(free).not.toBeNull();
      await free!();
    });

    it('tryLock returns null while withLock holds the lock', async () => {
      const gate = deferred();
      const holding = store.locks.withLock('job', () => gate.promise);
      await eventually(async () => {
        const release = await store.locks.tryLock('job', 60_000);
        if (release === null) return true;
        await release(); // withLock had not taken it yet
        return null;
      });
      gate.resolve();
      await holding;
      expect(await store.locks.tryLock('job', 60_000)).not.toBeNull();
    });
  });
}
