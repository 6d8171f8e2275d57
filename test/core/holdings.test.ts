import fc from 'fast-check';

import { Holdings } from '../../src/core/holdings.js';

// Holdings keeps members by holder, oldest first, and knows the biggest holder at once: checked
// against a plain model (arrays, a scan for the biggest) over random sequences of operations.

type Op =
  | { op: 'add'; holder: string; member: number }
  | { op: 'delete'; holder: string; member: number }
  | { op: 'renew'; holder: string; member: number };

const holder = fc.constantFrom('a', 'b', 'c', 'd');
const member = fc.integer({ min: 0, max: 12 });
const operation: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('add' as const), holder, member }),
  fc.record({ op: fc.constant('delete' as const), holder, member }),
  fc.record({ op: fc.constant('renew' as const), holder, member }),
);

describe('Holdings', () => {
  it('agrees with a model: counts, size, each holder oldest first, and a biggest holder holding the most', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 80 }), (ops) => {
        const holdings = new Holdings<number>();
        const model = new Map<string, number[]>();
        for (const { op, holder: h, member: m } of ops) {
          const list = model.get(h) ?? [];
          const at = list.indexOf(m);
          if (op === 'add') {
            if (at >= 0) list.splice(at, 1);
            list.push(m);
            holdings.add(h, m);
          } else if (op === 'renew') {
            expect(holdings.renew(h, m)).toBe(at >= 0);
            if (at >= 0) list.push(...list.splice(at, 1));
          } else {
            expect(holdings.delete(h, m)).toBe(at >= 0);
            if (at >= 0) list.splice(at, 1);
          }
          if (list.length > 0) model.set(h, list);
          else model.delete(h);

          const most = Math.max(0, ...[...model.values()].map((l) => l.length));
          expect(holdings.size).toBe([...model.values()].reduce((n, l) => n + l.length, 0));
          const biggest = holdings.biggest();
          if (most === 0) expect(biggest).toBeUndefined();
          else expect(model.get(biggest!)?.length).toBe(most);
          for (const name of ['a', 'b', 'c', 'd']) {
            expect(holdings.count(name)).toBe(model.get(name)?.length ?? 0);
            expect(holdings.oldest(name)).toBe(model.get(name)?.[0]);
          }
        }
      }),
    );
  });

  it('on a tie, names the holder that reached that count first', () => {
    const holdings = new Holdings<string>();
    holdings.add('late', 'l1');
    holdings.add('early', 'e1');
    holdings.add('early', 'e2');
    holdings.add('late', 'l2');
    expect(holdings.biggest()).toBe('early');
    holdings.delete('early', 'e1');
    expect(holdings.biggest()).toBe('late');
  });
});
