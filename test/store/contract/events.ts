import { eventually } from '../../helpers/waiting.js';
import type { ContractSuite } from './suite.js';

/** Events: messages to the subscribers of a channel, not kept for later ones. */
export function describeEventsContract(suite: ContractSuite): void {
  const { store } = suite;

  describe('events', () => {
    it('a message reaches the subscribers of its channel only', async () => {
      const onA: unknown[] = [];
      const onB: unknown[] = [];
      const onA2: unknown[] = [];
      await store.events.subscribe('a', (m) => onA.push(m));
      await store.events.subscribe('a', (m) => onA2.push(m));
      await store.events.subscribe('b', (m) => onB.push(m));
      await store.events.publish('a', { kind: 'first', values: [1, 2] });
      await store.events.publish('b', 'second');
      await eventually(() => (onA.length > 0 && onA2.length > 0 && onB.length > 0) || null);
      expect(onA).toEqual([{ kind: 'first', values: [1, 2] }]);
      expect(onA2).toEqual([{ kind: 'first', values: [1, 2] }]);
      // Published after the message of `a`: had that one leaked here, it would have come first.
      expect(onB).toEqual(['second']);
    });

    it('a message published while nobody subscribes is dropped, not kept for a later subscriber', async () => {
      await store.events.publish('d', 'unheard');
      const heard: unknown[] = [];
      await store.events.subscribe('d', (m) => heard.push(m));
      await store.events.publish('d', 'heard');
      await eventually(() => heard.length > 0 || null);
      expect(heard).toEqual(['heard']);
    });

    it('unsubscribe stops the messages of that subscriber only', async () => {
      const gone: unknown[] = [];
      const staying: unknown[] = [];
      const unsubscribe = await store.events.subscribe('c', (m) => gone.push(m));
      await store.events.subscribe('c', (m) => staying.push(m));
      await store.events.publish('c', 1);
      await eventually(() => (gone.length === 1 && staying.length === 1) || null);
      await unsubscribe();
      await store.events.publish('c', 2);
      await eventually(() => staying.length === 2 || null);
      expect(gone).toEqual([1]);
      expect(staying).toEqual([1, 2]);
    });
  });
}
