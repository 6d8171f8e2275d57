import fc from 'fast-check';

import { applyChange } from '../../src/store/change-draft.js';
import type { AccountDoc } from '../../src/store/data.js';
import { jsonBytes } from '../../src/store/json-size.js';
import { AccountStorageError, deepFreeze } from '../../src/store/limits.js';

/** What ACCOUNT_STORAGE_LIMIT counts: the UTF-8 bytes of JSON.stringify (which writes nothing for undefined). */
const jsonSize = (value: unknown): number => (value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value)));

/** Any UTF-16 code unit, lone surrogates and characters JSON escapes included. */
const text = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 8 });
const scalar = fc.oneof(
  text,
  fc.constantFrom('', 'é', '€', '😀', '"\\', '\u2028', '\ud800', '\n\t\u0001', 'x'.repeat(40)),
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, -0, 1e21, 1e-7, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
);
const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.sparseArray(tie('value'), { maxLength: 4 }),
    fc.dictionary(text, tie('value'), { maxKeys: 5 }),
  ),
}));
const documentArb = fc.dictionary(text, value, { maxKeys: 6 });

type Container = Record<string, unknown> | unknown[];
const isContainer = (v: unknown): v is Container => typeof v === 'object' && v !== null;

/** One change of a draft: follow `path` (each step taken modulo what is there), then set, delete or insert there. */
const changeArb = fc.record({
  path: fc.array(fc.nat(), { maxLength: 4 }),
  kind: fc.constantFrom('set', 'delete', 'push', 'splice', 'undefined', 'grow'),
  key: text,
  value,
});

type Step = typeof changeArb extends fc.Arbitrary<infer S> ? S : never;

function applyOne(root: Container, step: Step): void {
  let at: Container = root;
  for (const seed of step.path) {
    const keys = Object.keys(at);
    if (keys.length === 0) break;
    const next: unknown = (at as Record<string, unknown>)[keys[seed % keys.length]!];
    if (!isContainer(next)) break;
    at = next;
  }
  if (Array.isArray(at)) {
    const index = step.path.length === 0 ? 0 : step.path[step.path.length - 1]! % (at.length + 1);
    if (step.kind === 'push') at.push(step.value);
    else if (step.kind === 'splice' || step.kind === 'delete') at.splice(index, 1);
    else if (step.kind === 'grow') at.length += 2;
    else at[index] = step.kind === 'undefined' ? undefined : step.value;
    return;
  }
  const record = at;
  const existing = Object.keys(record);
  const key = step.kind === 'delete' && existing.length > 0 ? existing[step.key.length % existing.length]! : step.key;
  if (step.kind === 'delete') Reflect.deleteProperty(record, key);
  else record[key] = step.kind === 'undefined' ? undefined : step.value;
}

const allFrozen = (v: unknown): boolean =>
  !isContainer(v) || (Object.isFrozen(v) && Object.values(v as Record<string, unknown>).every(allFrozen));

describe('jsonBytes: the stored size of a document, counted part by part', () => {
  it('equals the UTF-8 bytes of JSON.stringify for any value, frozen or not', () => {
    fc.assert(
      fc.property(value, fc.boolean(), (v, freeze) => {
        expect(jsonBytes(freeze ? deepFreeze(v) : v)).toBe(jsonSize(v));
      }),
      { numRuns: 500 },
    );
  });

  it('stays exact across changes made on copy-on-write drafts: parts shared with the document before, parts new, absent and undefined fields', () => {
    fc.assert(
      fc.property(documentArb, fc.array(fc.array(changeArb, { maxLength: 5 }), { maxLength: 4 }), (start, changes) => {
        let doc = deepFreeze(start) as unknown as AccountDoc;
        expect(jsonBytes(doc)).toBe(jsonSize(doc));
        for (const steps of changes) {
          const before = JSON.stringify(doc);
          const { doc: next } = applyChange(doc, (draft) => {
            for (const step of steps) applyOne(draft as unknown as Container, step);
          });
          expect(JSON.stringify(doc)).toBe(before);
          expect(allFrozen(next)).toBe(true);
          expect(jsonBytes(next)).toBe(jsonSize(next));
          doc = next as AccountDoc;
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a change that has not touched a large part measures only what it touched', () => {
    const big = deepFreeze({ faults: Array.from({ length: 50 }, (_, i) => ({ i, body: 'é'.repeat(10_000) })), n: 1 });
    expect(jsonBytes(big)).toBe(jsonSize(big));
    const { doc } = applyChange(big as unknown as AccountDoc, (d) => {
      (d as unknown as { n: number }).n = 2;
    });
    const next = doc as unknown as typeof big;
    expect(next.faults).toBe(big.faults);
    expect(jsonBytes(next)).toBe(jsonSize(next));
  });
});

describe('AccountStorageError', () => {
  it('names the largest parts with their exact stored sizes', () => {
    const doc = deepFreeze({
      faults: [{ body: '€'.repeat(3000) }],
      alerts: [{ note: 'a'.repeat(2000) }],
      subscriptions: [{ endpoint: 'é'.repeat(500) }],
      locations: [],
    }) as unknown as AccountDoc;
    const { message } = new AccountStorageError(20_000, 10_000, doc);
    const part = (key: 'faults' | 'alerts' | 'subscriptions') => jsonSize(doc[key]).toLocaleString('en-US');
    expect(message).toContain(
      `Its largest parts: faults ${part('faults')} bytes (DELETE /sandbox/faults); alerts ${part('alerts')} bytes (POST /sandbox/reset); subscriptions ${part('subscriptions')} bytes (DELETE /v1/subscriptions/{subscriptionId}). Delete some of them first`,
    );
  });
});
