import type { Express } from 'express';

import { buildInitialData } from '../../src/accounts/initial-state.js';
import { loadConfig } from '../../src/config.js';
import { ManualClock } from '../../src/core/clock.js';
import { silentLogger, type Logger } from '../../src/core/logger.js';
import { buildDeps, type Deps, type DepsOverrides } from '../../src/deps.js';
import { createApp } from '../../src/http/app.js';
import { loadScenarios } from '../../src/scenarios/catalog.js';
import type { Data } from '../../src/store/data.js';
import { loadFixtures, type FixtureSet } from '../../src/store/fixtures.js';
import { openStore } from '../../src/store/lowdb-store.js';
import type { Store } from '../../src/store/store.js';
import { loopbackOnlySender } from './loopback-only-sender.js';

/** The instant every test app's clock starts at, unless a test says otherwise. */
export const TEST_START = new Date('2026-03-10T15:30:00Z');

let fixturesOnce: Promise<{ fixtures: FixtureSet; data: Data }> | null = null;

/** The shipped fixtures, loaded and hashed once per test file (scrypt is slow on purpose). */
export function shippedFixtures(): Promise<{ fixtures: FixtureSet; data: Data }> {
  fixturesOnce ??= loadFixtures('fixtures').then(async (fixtures) => ({ fixtures, data: await buildInitialData(fixtures, TEST_START) }));
  return fixturesOnce;
}

export interface TestApp {
  app: Express;
  deps: Deps;
  clock: ManualClock;
  store: Store;
}

/**
 * The real wiring of main.ts (loadConfig → buildDeps → createApp) with a manual clock, a
 * silent logger, a sender that only reaches loopback hosts, and, unless `env.DATA_FILE` says
 * otherwise, the in-memory store.
 */
export async function buildTestApp(
  options: { env?: Record<string, string>; start?: Date; logger?: Logger; overrides?: Omit<DepsOverrides, 'clock'> } = {},
): Promise<TestApp> {
  const config = loadConfig({ DATA_FILE: ':memory:', LOG_LEVEL: 'silent', ...options.env });
  const { fixtures, data } = await shippedFixtures();
  const clock = new ManualClock(options.start ?? TEST_START);
  const { store } = await openStore(config.dataFile, () => structuredClone(data));
  const scenarios = options.overrides?.scenarios ?? (await loadScenarios(config.scenariosDir));
  const deps = buildDeps(config, store, fixtures, { clock, logger: options.logger ?? silentLogger, sender: loopbackOnlySender, scenarios, ...options.overrides });
  return { app: createApp(deps), deps, clock, store };
}
