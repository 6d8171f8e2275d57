import { present } from '../../core/errors.js';
import type { AccountDoc, DeepReadonly, DeliveryRecord, JournalEntry } from '../data.js';
import { ACCOUNT_SCHEMA_VERSION } from '../data.js';
import { deliveryDueMs, earliest, storedDelivery } from '../derived.js';
import { jsonBytes } from '../json-size.js';
import { StoreFileError, type LowdbFile } from './lowdb-file.js';

/** accounts/<id>.json: one account's document and its delivery log. */
export interface AccountFileData {
  doc: AccountDoc;
  deliveries: DeliveryRecord[];
}

/** journals/<id>.json: its request journal. */
export interface JournalFileData {
  entries: JournalEntry[];
  /** The seq of the last entry appended, kept when the journal is cleared so seqs never repeat. */
  lastSeq?: number;
}

/** An account held in memory: its file, its delivery log by id and state, its index keys and its journal once opened. */
export interface LoadedAccount {
  file: LowdbFile<AccountFileData>;
  /** The stored document as JSON, once a write has made it (the next write reuses it while the document is unchanged). */
  docText: DocText;
  byId: Map<string, DeliveryRecord>;
  pending: Set<string>;
  finished: number;
  entries: Set<string>;
  journal: LowdbFile<JournalFileData> | null;
  /** Operations under way; a pinned account is not evicted (see AccountCache). */
  pins: number;
}

/** An account document's JSON, kept with it while it is the stored one (`doc`). */
export interface DocText {
  doc: DeepReadonly<AccountDoc> | null;
  json: string;
}

export const emptyDocText = (): DocText => ({ doc: null, json: '' });

/** `text`, made the JSON of `doc` first when it is of another document. */
function currentText(text: DocText, doc: DeepReadonly<AccountDoc>): DocText {
  if (text.doc !== doc) Object.assign(text, { doc, json: JSON.stringify(doc) });
  return text;
}

/** The stored size of the account's document (measured once, then kept with its parts: see json-size.ts). */
export const docBytes = (loaded: LoadedAccount): number => jsonBytes(loaded.file.data.doc);

/**
 * Each delivery record's JSON, made at the first write that holds it. A stored record is not
 * changed in place (an update replaces it), except by `changedInPlace`, which drops its text.
 */
const deliveryTexts = new WeakMap<DeliveryRecord, string>();

function deliveryText(record: DeliveryRecord): string {
  let text = deliveryTexts.get(record);
  if (text === undefined) {
    text = JSON.stringify(record);
    deliveryTexts.set(record, text);
  }
  return text;
}

/** A stored record was changed in place: its next write serialises it again. */
export function changedInPlace(record: DeliveryRecord): void {
  deliveryTexts.delete(record);
}

/**
 * The text of an account's file: the document's JSON (serialised again only when a change
 * replaced the document since the last write), and the delivery log, each record serialised
 * once: a write of an account with a thousand deliveries costs what changed, not the log
 * (the same text as JSON.stringify of the log).
 */
export const accountFileText =
  (text: DocText) =>
  (data: AccountFileData): string =>
    `{"doc":${currentText(text, data.doc).json},"deliveries":[${data.deliveries.map(deliveryText).join(',')}]}`;

/** An account as held, its file's delivery log indexed; `pins`: the callers it is held for. */
export function loadedAccount(
  file: LowdbFile<AccountFileData>,
  docText: DocText,
  entries: Set<string>,
  pins: number,
  deliveries: readonly DeliveryRecord[],
): LoadedAccount {
  const loaded: LoadedAccount = {
    file,
    docText,
    byId: new Map(),
    pending: new Set(),
    finished: 0,
    entries,
    journal: null,
    pins,
  };
  file.data.deliveries = [];
  for (const record of deliveries) addDelivery(loaded, record);
  return loaded;
}

/** Appends a record (as stored: older fields dropped, see storedDelivery) to the account's log. */
export function addDelivery(loaded: LoadedAccount, record: DeliveryRecord): void {
  const stored = storedDelivery(record);
  loaded.file.data.deliveries.push(stored);
  loaded.byId.set(stored.deliveryId, stored);
  if (stored.state === 'pending') loaded.pending.add(stored.deliveryId);
  else loaded.finished++;
}

/** A delivery left the pending state: count it, and drop the oldest finished one beyond the log limit. */
export function finishDelivery(loaded: LoadedAccount, deliveryId: string, logLimit: number): void {
  loaded.pending.delete(deliveryId);
  loaded.finished++;
  const list = loaded.file.data.deliveries;
  while (loaded.finished > logLimit) {
    // Finished deliveries are mostly in creation order, so the oldest is near the front.
    const oldest = list.findIndex((x) => x.state !== 'pending');
    const record = list[oldest];
    if (record === undefined) break;
    loaded.byId.delete(record.deliveryId);
    list.splice(oldest, 1);
    loaded.finished--;
  }
}

/** When the account's next pending delivery falls due on its clock, or null. */
export function nextDeliveryDueMs(loaded: LoadedAccount): number | null {
  let min: number | null = null;
  for (const id of loaded.pending)
    min = earliest(min, deliveryDueMs(present(loaded.byId.get(id), 'the record of a pending delivery')));
  return min;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function validateAccountFile(parsed: unknown): AccountFileData {
  const doc = isObject(parsed) ? parsed['doc'] : undefined;
  if (
    !isObject(doc) ||
    doc['schemaVersion'] !== ACCOUNT_SCHEMA_VERSION ||
    !Array.isArray((parsed as { deliveries?: unknown }).deliveries)
  ) {
    throw new StoreFileError(`an account file of DATA_DIR is not of schemaVersion ${ACCOUNT_SCHEMA_VERSION}`);
  }
  return parsed as AccountFileData;
}
