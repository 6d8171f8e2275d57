import { eventually } from '../../helpers/waiting.js';
import type { ContractSuite } from './suite.js';

/** Counters: fixed windows counted from their first increment. */
export function describeCountersContract(suite: ContractSuite): void {
  const { store, clock, onClockIt, shortTtlMs } = suite;

  describe('counters', () => {
    it('count up from one, each key on its own', async () => {
      expect(await store.counters.increment('k1', 60_000)).toBe(1);
      expect(await store.counters.increment('k1', 60_000)).toBe(2);
      expect(await store.counters.increment('k2', 60_000)).toBe(1);
      expect(await store.counters.increment('k1', 60_000)).toBe(3);
    });

    it('concurrent increments each get their own count', async () => {
      const counts = await Promise.all(Array.from({ length: 100 }, () => store.counters.increment('k', 60_000)));
      expect([...counts].sort((x, y) => x - y)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    });

    it('start again from one once the TTL has passed', async () => {
      expect(await store.counters.increment('k', shortTtlMs)).toBe(1);
      expect(await store.counters.increment('k', shortTtlMs)).toBe(2);
      clock.advance(shortTtlMs);
      // Each poll increments; the first after expiry counts 1 again.
      await eventually(async () => (await store.counters.increment('k', shortTtlMs)) === 1 || null);
      expect(await store.counters.increment('k', shortTtlMs)).toBe(2);
    });

    it('take one back with decrement, never below zero, and a key without a count stays at zero', async () => {
      await store.counters.increment('k', 60_000);
      await store.counters.increment('k', 60_000);
      await store.counters.decrement('k');
      expect(await store.counters.get('k')).toBe(1);
      await store.counters.decrement('k');
      await store.counters.decrement('k');
      expect(await store.counters.get('k')).toBe(0);
      expect(await store.counters.increment('k', 60_000)).toBe(1);
      await store.counters.decrement('never-counted');
      expect(await store.counters.get('never-counted')).toBe(0);
    });

    it('concurrent increments and decrements leave the difference', async () => {
      await Promise.all(Array.from({ length: 50 }, () => store.counters.increment('k', 60_000)));
      await Promise.all([
        ...Array.from({ length: 30 }, () => store.counters.decrement('k')),
        ...Array.from({ length: 10 }, () => store.counters.increment('k', 60_000)),
      ]);
      expect(await store.counters.get('k')).toBe(30);
    });

    onClockIt('a decrement to zero keeps the window of the first increment', async () => {
      expect(await store.counters.increment('k', 60_000)).toBe(1);
      await store.counters.decrement('k');
      clock.advance(59_999);
      expect(await store.counters.increment('k', 60_000)).toBe(1);
      clock.advance(1);
      expect(await store.counters.get('k')).toBe(0);
    });

    it('incrementInWindow keeps one counter per key: counting in a window, and from one again in another (or back in an earlier one)', async () => {
      expect(await store.counters.incrementInWindow('w', 'a/1', 60_000)).toBe(1);
      expect(await store.counters.incrementInWindow('w', 'a/1', 60_000)).toBe(2);
      expect(await store.counters.incrementInWindow('w2', 'a/1', 60_000)).toBe(1);
      expect(await store.counters.incrementInWindow('w', 'a/2', 60_000)).toBe(1);
      expect(await store.counters.incrementInWindow('w', 'a/2', 60_000)).toBe(2);
      expect(await store.counters.incrementInWindow('w', 'a/1', 60_000)).toBe(1);
      const counts = await Promise.all(
        Array.from({ length: 50 }, () => store.counters.incrementInWindow('w', 'b/7', 60_000)),
      );
      expect([...counts].sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    });

    it('incrementInWindow starts again from one once the TTL of its window has passed', async () => {
      expect(await store.counters.incrementInWindow('w', 'a/1', shortTtlMs)).toBe(1);
      expect(await store.counters.incrementInWindow('w', 'a/1', shortTtlMs)).toBe(2);
      clock.advance(shortTtlMs);
      await eventually(async () => (await store.counters.incrementInWindow('w', 'a/1', shortTtlMs)) === 1 || null);
    });

    onClockIt('on the store clock, the window is fixed by the first increment, not renewed by later ones', async () => {
      expect(await store.counters.increment('k', 60_000)).toBe(1);
      clock.advance(59_999);
      expect(await store.counters.increment('k', 60_000)).toBe(2);
      clock.advance(1);
      expect(await store.counters.increment('k', 60_000)).toBe(1);
    });
  });
}
