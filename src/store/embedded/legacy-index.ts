import { readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { CLOSED_STATE_FILE } from './closed-index.js';
import { isObject } from './loaded-account.js';
import { LowdbFile, StoreFileError } from './lowdb-file.js';
import { shardText, type ShardDocument } from './paged-shards.js';
import { ShardLog } from './shard-log.js';

/** Files of the index before 0.4.0: index/<00-ff>.json and .log, 256 shards by account, each summary with its keys. */
const LEGACY_SHARD = /^[0-9a-f]{2}\.(json|log)$/;

/** Written once the shards of today hold the whole legacy index: from then on the legacy files are only removed. */
const CONVERTED = 'converted';

/** What a summary needs to say to be converted: its keys. */
interface LegacySummary {
  entries: string[];
}

export interface LegacyConversion<M extends LegacySummary> {
  summaryShard: (accountId: string) => number;
  keyShard: (entry: string) => number;
  isSummary: (value: unknown) => value is M;
}

/**
 * Converts the index of an earlier version (all of it in memory, in 256 shards by account) into
 * today's (summaries and keys in shards of their own, read as needed: account-index.ts), once:
 * the new shards are written whole, then a mark, then the old files are removed. A kill before
 * the mark converts again from the start at the next open; after it, only the removal is
 * finished. The conversion holds the whole index in memory once, as the earlier version did.
 */
export async function migrateLegacyShards<M extends LegacySummary>(
  indexFolder: string,
  conversion: LegacyConversion<M>,
): Promise<void> {
  const names = await readdir(indexFolder).catch(() => [] as string[]);
  const legacy = names.filter((name) => LEGACY_SHARD.test(name));
  if (legacy.length > 0 && !names.includes(CONVERTED)) {
    await removeShardFiles(indexFolder);
    const summaries = new Map<number, Map<string, M>>();
    const keys = new Map<number, Map<string, string>>();
    const into = <V>(shards: Map<number, Map<string, V>>, shard: number): Map<string, V> => {
      let records = shards.get(shard);
      if (!records) {
        records = new Map();
        shards.set(shard, records);
      }
      return records;
    };
    for (const [accountId, summary] of await readLegacy(indexFolder, legacy, conversion.isSummary)) {
      into(summaries, conversion.summaryShard(accountId)).set(accountId, summary);
      for (const entry of summary.entries) into(keys, conversion.keyShard(entry)).set(entry, accountId);
    }
    await writeShards(join(indexFolder, 'summaries'), summaries);
    await writeShards(join(indexFolder, 'keys'), keys);
    await writeFile(join(indexFolder, CONVERTED), '');
  }
  await Promise.all(legacy.map((name) => rm(join(indexFolder, name), { force: true })));
  await rm(join(indexFolder, CONVERTED), { force: true });
}

/** Removes the index's files of a folder that holds no store (fresh): what an earlier attempt left there is not read. */
export async function removeIndexFiles(indexFolder: string): Promise<void> {
  const names = await readdir(indexFolder).catch(() => [] as string[]);
  await Promise.all(
    names
      .filter((name) => LEGACY_SHARD.test(name) || name === CONVERTED || name === CLOSED_STATE_FILE)
      .map((name) => rm(join(indexFolder, name), { force: true })),
  );
  await removeShardFiles(indexFolder);
}

/** Today's shard files (index/summaries/<xxx>.json|.log, index/keys/…), and nothing else of those folders. */
async function removeShardFiles(indexFolder: string): Promise<void> {
  for (const kind of ['summaries', 'keys']) {
    const folder = join(indexFolder, kind);
    const names = await readdir(folder).catch(() => [] as string[]);
    await Promise.all(
      names
        .filter((name) => /^([0-9a-f]{3}\.(json|log)|journal\.(log|old))$/.test(name))
        .map((name) => rm(join(folder, name), { force: true })),
    );
  }
}

/** Every summary of the legacy shards, their logs read over their files. */
async function readLegacy<M>(
  indexFolder: string,
  names: readonly string[],
  isSummary: (value: unknown) => value is M,
): Promise<Map<string, M>> {
  const all = new Map<string, M>();
  const shards = [...new Set(names.map((name) => name.slice(0, 2)))].sort();
  for (const shard of shards) {
    const file = names.includes(`${shard}.json`)
      ? await LowdbFile.open(join(indexFolder, `${shard}.json`), validateLegacyShard)
      : null;
    for (const [accountId, summary] of Object.entries(file?.data.accounts ?? {}))
      if (isSummary(summary)) all.set(accountId, summary);
    const log = await ShardLog.read<unknown>(join(indexFolder, `${shard}.log`));
    for (const [accountId, summary] of log.lines) {
      if (summary === null) all.delete(accountId);
      else if (isSummary(summary)) all.set(accountId, summary);
    }
  }
  return all;
}

async function writeShards<V>(folder: string, shards: Map<number, Map<string, V>>): Promise<void> {
  const all = [...shards];
  const batch = 64;
  for (let i = 0; i < all.length; i += batch) {
    await Promise.all(
      all.slice(i, i + batch).map(([shard, records]) => {
        const path = join(folder, `${shard.toString(16).padStart(3, '0')}.json`);
        return LowdbFile.create<ShardDocument<V>>(path, { records }, shardText).save();
      }),
    );
  }
}

function validateLegacyShard(parsed: unknown): { accounts: Record<string, unknown> } {
  if (!isObject(parsed) || !isObject(parsed['accounts']))
    throw new StoreFileError('an index shard of DATA_DIR is not valid');
  return parsed as { accounts: Record<string, unknown> };
}
