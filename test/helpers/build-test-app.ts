import { randomUUID } from 'node:crypto';

import type { Express } from 'express';

import { accountDocFromFixture } from '../../src/accounts/initial-state.js';
import { seedFixtures } from '../../src/accounts/lifecycle.js';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { ManualClock } from '../../src/core/clock.js';
import { silentLogger, type Logger } from '../../src/core/logger.js';
import { buildDeps, type Deps, type DepsOverrides } from '../../src/deps.js';
import { loadScenarios } from '../../src/scenarios/index.js';
import { storeOptionsOf } from '../../src/server.js';
import type { AccountDoc, DeepReadonly, DeliveryRecord } from '../../src/store/data.js';
import { loadFixtures, type FixtureSet } from '../../src/store/fixtures.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import type { Resolve } from '../../src/webhooks/address-policy.js';
import { DEMO_ACCOUNT_ID } from './demo.js';
import { loopbackOnlySenderFor, testResolve } from './loopback-only-sender.js';
import { checkedAgainstDocument } from './openapi-check.js';
import { eventually } from './waiting.js';

/** The instant every test app's clock starts at, unless a test says otherwise. */
export const TEST_START = new Date('2026-03-10T15:30:00Z');

let fixturesOnce: Promise<{ fixtures: FixtureSet; docs: AccountDoc[] }> | null = null;

/** The shipped fixtures, loaded once per test file. */
export function shippedFixtures(): Promise<{ fixtures: FixtureSet; docs: AccountDoc[] }> {
  fixturesOnce ??= loadFixtures('fixtures').then((fixtures) => ({
    fixtures,
    docs: fixtures.accounts.map((f) => accountDocFromFixture(f, TEST_START)),
  }));
  return fixturesOnce;
}

export interface TestApp {
  app: Express;
  deps: Deps;
  clock: ManualClock;
  store: Store;
}

/**
 * The real wiring of server.ts (loadConfig → openStore → buildDeps → seed → createApp) with a
 * manual clock, a silent logger, the sandbox's sender only reaching loopback hosts, names
 * resolved by `resolve` (the test resolver by default: localhost only, never DNS), and, unless
 * `env.DATA_DIR` says otherwise, the in-memory store. Every response of the app is checked
 * against /openapi.json (openapi-check.ts).
 */
export async function buildTestApp(
  options: {
    env?: Record<string, string>;
    start?: Date;
    logger?: Logger;
    resolve?: Resolve;
    overrides?: Omit<DepsOverrides, 'clock'>;
  } = {},
): Promise<TestApp> {
  const config = loadConfig({
    DATA_DIR: ':memory:',
    LOG_LEVEL: 'silent',
    ...redisForApiSuites(options.env),
    ...options.env,
  });
  const { fixtures, docs } = await shippedFixtures();
  const clock = new ManualClock(options.start ?? TEST_START);
  const { store } = await openStore(storeOptionsOf(config, { cacheSize: 2000 }), clock);
  if (config.redisUrl !== null) await whenRedisReady(store);
  const scenarios = options.overrides?.scenarios ?? (await loadScenarios(config.scenariosDir));
  const resolve = options.resolve ?? testResolve();
  const sender = loopbackOnlySenderFor(config, resolve);
  const deps = await buildDeps(config, store, fixtures, {
    clock,
    logger: options.logger ?? silentLogger,
    sender,
    resolve,
    scenarios,
    ...options.overrides,
  });
  await seedFixtures(deps, docs);
  return { app: checkedAgainstDocument(createApp(deps)), deps, clock, store };
}

/**
 * With TEST_REDIS_URL set (jest.redis-api.config.js sets it), test apps that would use the
 * in-memory store use that Redis instead, under a fresh key prefix each: the API suites then
 * check that the Redis store behaves as the embedded one. Their stores are closed after each file.
 */
const redisStores: Store[] = [];

function redisForApiSuites(env: Record<string, string> | undefined): Record<string, string> {
  const url = process.env['TEST_REDIS_URL'];
  if (!url || env?.['DATA_DIR'] !== undefined || env?.['REDIS_URL'] !== undefined) return {};
  return { REDIS_URL: url, REDIS_PREFIX: `ws-api-${randomUUID()}:` };
}

async function whenRedisReady(store: Store): Promise<void> {
  redisStores.push(store);
  await eventually(async () => (await store.health()).ok || null).catch(async () => {
    throw new Error(`the test Redis is not ready: ${String((await store.health()).reason)}`);
  });
}

/** Closes the Redis stores test apps opened (a no-op without TEST_REDIS_URL). */
export async function closeRedisTestStores(): Promise<void> {
  await Promise.all(redisStores.splice(0).map((s) => s.close()));
}

/** An account's document (the demo account's by default); fails the test when it is missing. */
export async function docOf(t: { store: Store }, accountId = DEMO_ACCOUNT_ID): Promise<DeepReadonly<AccountDoc>> {
  const doc = await t.store.accounts.get(accountId);
  if (!doc) throw new Error(`no account ${accountId} in the store`);
  return doc;
}

/** Changes an account's document directly (test set-up that the API cannot express). */
export function changeDoc<T>(
  t: { store: Store },
  change: (doc: AccountDoc) => T,
  accountId = DEMO_ACCOUNT_ID,
): Promise<T> {
  return t.store.accounts.update(accountId, (doc) => change(doc));
}

/** The account's deliveries, oldest first, copied from the store (a test may change its copies). */
export async function deliveriesIn(t: { store: Store }, accountId = DEMO_ACCOUNT_ID): Promise<DeliveryRecord[]> {
  const { items } = await t.store.deliveries.list(accountId, { offset: 0, limit: 100_000 });
  return structuredClone(items as DeliveryRecord[]).reverse();
}

/** The live login sessions of the store, by session id. */
export function sessionsOf(t: { store: Store }): Promise<Record<string, Record<string, unknown>>> {
  return new Promise((resolve, reject) => {
    const all = t.store.sessions.all?.bind(t.store.sessions);
    if (!all) {
      reject(new Error('the session store cannot list its sessions'));
      return;
    }
    all((err, sessions) =>
      err
        ? reject(err instanceof Error ? err : new Error(String(err)))
        : resolve((sessions ?? {}) as unknown as Record<string, Record<string, unknown>>),
    );
  });
}
