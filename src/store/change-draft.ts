import { current, Immer, isDraft, type Draft } from 'immer';

import type { AccountDoc, DeepReadonly, DeliveryRecord } from './data.js';
import type { AccountTx } from './store.js';

/** Its own instance, so no other user of immer changes how the store's drafts freeze. */
const immer = new Immer({ autoFreeze: true });

export interface AppliedChange<T> {
  /** The document after the change: the stored one itself when nothing changed, else a new one sharing its unchanged parts with it. Deep frozen. */
  doc: DeepReadonly<AccountDoc>;
  result: T;
  added: DeliveryRecord[];
  /** The change asked to be written lazily (AccountTx.writeLazily). */
  lazy: boolean;
}

/**
 * Runs a change of an account on a copy-on-write draft of its stored document, which must be deep
 * frozen: only what the change touches is copied, so a change (or its refusal) costs what it
 * touches, not the size of the account, and a change that throws leaves the stored document as
 * it was. What the change returns and the deliveries it adds may hold parts of the draft: they
 * are handed back as the change left them, never as a draft (which is unusable once the change
 * ends).
 */
export function applyChange<T>(
  stored: DeepReadonly<AccountDoc>,
  change: (doc: AccountDoc, tx: AccountTx) => T,
): AppliedChange<T> {
  const draft = immer.createDraft(stored as AccountDoc);
  const added: DeliveryRecord[] = [];
  let lazy = false;
  const tx: AccountTx = {
    addDeliveries: (records) => added.push(...records),
    writeLazily: () => {
      lazy = true;
    },
  };
  const result = withoutDrafts(change(draft as AccountDoc, tx));
  withoutDrafts(added);
  return { doc: immer.finishDraft(draft), result, added, lazy };
}

/** `value` with every draft in it (itself, or held by objects and arrays the change made) replaced by a snapshot of it. */
function withoutDrafts<T>(value: T, seen = new Set<object>()): T {
  if (isDraft(value)) return current<T>(value as Draft<T>);
  if (typeof value !== 'object' || value === null || Object.isFrozen(value) || seen.has(value)) return value;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && prototype !== Object.prototype && prototype !== null) return value;
  seen.add(value);
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const part = record[key];
    const settled = withoutDrafts(part, seen);
    if (settled !== part) record[key] = settled;
  }
  return value;
}

/** A deep copy of a value, or of part of a change's draft, as it is now (structuredClone cannot copy a draft). */
export function copyOf<T>(value: T): T {
  return structuredClone<T>(isDraft(value) ? current<T>(value as Draft<T>) : value);
}
