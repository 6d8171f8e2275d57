import type { SessionData } from 'express-session';

import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { EmbeddedStore } from './embedded/embedded-store.js';
import { readJsonFile, StoreFileError } from './embedded/lowdb-file.js';
import type { AccountLimits } from './limits.js';
import { isStateV01, migrateV01 } from './migrate-v01.js';
import type { Store } from './store.js';

export { StoreFileError };

export interface StoreOptions {
  /** DATA_DIR: a folder, or ":memory:". */
  dataDir: string;
  /** DATA_FILE: a single state file of version 0.1, migrated into a fresh DATA_DIR. */
  legacyDataFile: string | null;
  /** REDIS_URL, when state lives in Redis. */
  redisUrl: string | null;
  deliveryLogLimit: number;
  sessionTtlMs: number;
  /** Login sessions kept at most (MAX_SESSIONS): past it the least recently used one ends. Unbounded when absent. */
  maxSessions?: number;
  /** Accounts kept loaded by the embedded store (parsed, by the Redis store). */
  cacheSize: number;
  /** And at most this many bytes of them, as stored (none when absent). */
  cacheBytes?: number;
  /** Prefix of every Redis key (default `ws:`): several sandboxes, or test runs, can share a Redis. */
  redisPrefix?: string;
  /** Where the Redis store reports connection trouble. */
  logger?: Logger;
  /** ACCOUNT_TTL in ms (0: generated accounts live for ever); see AccountStore. */
  accountLifetimeMs?: number;
  /** ACCOUNT_STORAGE_LIMIT and MAX_PENDING_DELIVERIES, checked on every change (none when absent). */
  limits?: AccountLimits;
  /** ACCOUNT_WRITE_RATE: bytes a second one account's file is written at, at most, by the embedded store (0 or absent: no limit). */
  accountWriteRate?: number;
}

export interface OpenedStore {
  store: Store;
  /** Where the state came from: a fresh store, state already there, or a migrated 0.1 file. */
  origin: 'fresh' | 'existing' | { migratedFrom: string; accounts: number };
}

/**
 * Setting that marks a migration under way ('started') or finished ('done'). The store is no
 * longer fresh once it is open (store.json is written at once), so without it a migration that
 * failed or was killed half-way would be taken for existing state on the next open.
 */
const MIGRATION_SETTING = 'legacyMigration';

/** Opens the configured store; a fresh one may take over a state file of version 0.1. */
export async function openStore(options: StoreOptions, clock: Clock): Promise<OpenedStore> {
  if (options.redisUrl !== null) {
    // Connects in the background: the caller waits for health() (see server.ts). Whether the
    // state is new shows once the fixtures are seeded, by the replica that gets there first.
    // Loaded only with REDIS_URL: the Redis client takes a fifth of a second to import.
    const { RedisStore } = await import('./redis/redis-store.js');
    const store = new RedisStore({
      url: options.redisUrl,
      deliveryLogLimit: options.deliveryLogLimit,
      sessionTtlMs: options.sessionTtlMs,
      ...(options.maxSessions === undefined ? {} : { maxSessions: options.maxSessions }),
      cacheSize: options.cacheSize,
      ...(options.cacheBytes === undefined ? {} : { cacheBytes: options.cacheBytes }),
      clock,
      accountLifetimeMs: options.accountLifetimeMs ?? 0,
      ...(options.limits === undefined ? {} : { limits: options.limits }),
      ...(options.redisPrefix === undefined ? {} : { prefix: options.redisPrefix }),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
    });
    return { store, origin: 'existing' };
  }
  const dir = options.dataDir === ':memory:' ? null : options.dataDir;
  const { store, fresh } = await EmbeddedStore.open({
    dir,
    clock,
    deliveryLogLimit: options.deliveryLogLimit,
    sessionTtlMs: options.sessionTtlMs,
    ...(options.maxSessions === undefined ? {} : { maxSessions: options.maxSessions }),
    cacheSize: options.cacheSize,
    ...(options.cacheBytes === undefined ? {} : { cacheBytes: options.cacheBytes }),
    accountLifetimeMs: options.accountLifetimeMs ?? 0,
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(options.accountWriteRate === undefined ? {} : { accountWriteRate: options.accountWriteRate }),
  });
  const interrupted = !fresh && (await store.settings.get(MIGRATION_SETTING)) === 'started';
  if (!fresh && !interrupted) return { store, origin: 'existing' };
  try {
    // Only the interrupted migration can have stored accounts: start again from nothing.
    if (interrupted) await deleteAllAccounts(store);
    if (dir === null || options.legacyDataFile === null) {
      if (interrupted) await store.settings.set(MIGRATION_SETTING, 'abandoned');
      return { store, origin: 'fresh' };
    }
    await store.settings.set(MIGRATION_SETTING, 'started');
    const migrated = await migrateLegacyFile(store, options.legacyDataFile);
    await store.settings.set(MIGRATION_SETTING, 'done');
    return {
      store,
      origin: migrated === null ? 'fresh' : { migratedFrom: options.legacyDataFile, accounts: migrated },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}

async function deleteAllAccounts(store: Store): Promise<void> {
  for (;;) {
    const { accounts } = await store.accounts.list({ limit: 100 });
    if (accounts.length === 0) return;
    for (const { accountId } of accounts) await store.accounts.delete(accountId);
  }
}

/**
 * Copies a 0.1 state file into the store through its public operations (so it works for any
 * backend) and leaves the file as it was. Returns the number of accounts, or null without a file.
 */
export async function migrateLegacyFile(store: Store, file: string): Promise<number | null> {
  const read = await readJsonFile(file, `DATA_FILE ${file}`, 'move it away to start from the fixtures');
  if (read === null) return null;
  const parsed = read.parsed;
  if (!isStateV01(parsed))
    throw new StoreFileError(
      `DATA_FILE ${file} is not a water-sandbox 0.1 state file (schemaVersion 1); move it away to start from the fixtures`,
    );
  const state = migrateV01(parsed);
  for (const account of state.accounts) {
    await store.accounts.create(account.doc, account.deliveries);
    for (const entry of account.journal) await store.journal.append(account.doc.account.accountId, entry);
  }
  for (const s of state.sessions) {
    await new Promise<void>((resolve, reject) =>
      store.sessions.set(s.sid, s.session as unknown as SessionData, (err) =>
        err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(),
      ),
    );
  }
  if (state.sessionSecret !== null) await store.settings.set('sessionSecret', state.sessionSecret);
  await store.flush();
  return state.accounts.length;
}
