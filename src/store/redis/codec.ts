import type { AccountDoc, DeepReadonly, DeliveryRecord } from '../data.js';
import { nextRunDueMs, originOf, splitIndexEntry, storedDelivery } from '../derived.js';

/** How documents and deliveries travel to the Lua scripts (see lua.ts): strings only, null as ''. */

export const text = (value: number | null): string => (value === null ? '' : String(value));

/** What the scripts keep of an account's document beside it: its clock and its next scenario step. */
export function docFields(doc: DeepReadonly<AccountDoc>): {
  name: string;
  offsetMs: string;
  frozenAtMs: string;
  runDueMs: string;
} {
  return {
    name: doc.account.name,
    offsetMs: String(doc.clock.offsetMs),
    frozenAtMs: text(doc.clock.frozenAtMs),
    runDueMs: text(nextRunDueMs(doc)),
  };
}

/** Index entries as [kind, key] pairs. */
export const pairsOf = (entries: Iterable<string>): [string, string][] =>
  [...entries].map((e) => {
    const { kind, key } = splitIndexEntry(e);
    return [kind, key];
  });

export interface EncodedDelivery {
  id: string;
  json: string;
  /** [state, kind, subscriptionId, locationId, origin]: what DeliveryStore.list and due filter on, without decoding the record. */
  meta: string;
  state: string;
  /** Its score among the pending deliveries: the due time, '+inf' when it has none, '' once finished. */
  due: string;
}

export function encodeDelivery(record: DeepReadonly<DeliveryRecord>, json = JSON.stringify(record)): EncodedDelivery {
  return {
    id: record.deliveryId,
    json,
    meta: JSON.stringify([
      record.state,
      record.kind,
      record.subscriptionId,
      record.locationId,
      originOf(record.target),
    ]),
    state: record.state,
    due: record.state !== 'pending' ? '' : record.dueAtMs === null ? '+inf' : String(record.dueAtMs),
  };
}

/** A delivery record from its stored JSON (see storedDelivery). */
export const decodeDelivery = (json: string): DeliveryRecord => storedDelivery(JSON.parse(json) as DeliveryRecord);

/** A script's answer as an array (Lua tables arrive as arrays; nil as null). */
export const asArray = (reply: unknown): unknown[] => (Array.isArray(reply) ? reply : []);

export const asText = (value: unknown): string =>
  typeof value === 'string' ? value : Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
