import { rm } from 'node:fs/promises';
import { join } from 'node:path';

import { DataFile } from 'lowdb/node';

import { isObject } from './loaded-account.js';
import { inFolderMadeWhenMissing, readJsonFile } from './lowdb-file.js';

/**
 * What the index's open learns from reading every summary (the count of accounts and their due
 * times), written by a clean close into `index/at-close.json` and taken (read, then removed) by
 * the next open, which then reads no summary: at 100,000 accounts that read is 42 MB of JSON,
 * most of a start-up's time (docs/benchmarks.md, "a start-up that reads no summary").
 *
 * Only a clean close writes it, and the open removes it before the store takes a change, so a
 * process killed after its open leaves none and the next open reads the summaries (and forgets
 * the accounts a kill left half-made). The open still checks it against the account files'
 * count, which a file added or removed by hand while the sandbox was stopped changes.
 */
export const CLOSED_STATE_FILE = 'at-close.json';

export interface ClosedIndexState {
  /** Accounts in the index when it was closed. */
  count: number;
  /** Accounts with work scheduled, and when it falls due on the process clock. */
  due: [accountId: string, dueAtMs: number][];
}

export async function writeClosedState(indexFolder: string, state: ClosedIndexState): Promise<void> {
  const path = join(indexFolder, CLOSED_STATE_FILE);
  // DataFile (steno) writes a temporary file and renames it: a crash leaves the whole file or none.
  // A store that never held an account has no index folder yet.
  const file = new DataFile<ClosedIndexState>(path, {
    parse: JSON.parse,
    stringify: (data) => JSON.stringify({ version: 1, ...data }),
  });
  await inFolderMadeWhenMissing(path, () => file.write(state));
}

/** The state a clean close left (null when none, or when it is not one), the file removed whatever it held. */
export async function takeClosedState(indexFolder: string): Promise<ClosedIndexState | null> {
  const path = join(indexFolder, CLOSED_STATE_FILE);
  const read = await readJsonFile(path, path, 'the open reads the summaries instead').catch(() => null);
  await rm(path, { force: true });
  return read !== null && isClosedState(read.parsed) ? { count: read.parsed.count, due: read.parsed.due } : null;
}

function isClosedState(value: unknown): value is ClosedIndexState {
  return (
    isObject(value) &&
    value['version'] === 1 &&
    Number.isSafeInteger(value['count']) &&
    (value['count'] as number) >= 0 &&
    Array.isArray(value['due']) &&
    value['due'].every(
      (pair) => Array.isArray(pair) && pair.length === 2 && typeof pair[0] === 'string' && Number.isFinite(pair[1]),
    )
  );
}
