// Builds the sandbox from dist/ the way the tests do (in-memory store, silent logs, a manual
// clock) and listens on a free loopback port, its server's classes adopted by the app as the
// served sandbox's are (createAppServer).
import { once } from 'node:events';

import { seedFixtures } from '../../dist/accounts/lifecycle.js';
import { createApp } from '../../dist/app.js';
import { loadConfig } from '../../dist/config.js';
import { ManualClock } from '../../dist/core/clock.js';
import { silentLogger } from '../../dist/core/logger.js';
import { buildDeps } from '../../dist/deps.js';
import { createAppServer } from '../../dist/http/app-prototypes.js';
import { loadScenarios } from '../../dist/scenarios/index.js';
import { storeOptionsOf } from '../../dist/server.js';
import { loadFixtures } from '../../dist/store/fixtures.js';
import { openStore } from '../../dist/store/open-store.js';

/** The instant the bench's clock stands at (the tests use the same one). */
export const BENCH_NOW = new Date('2026-03-10T15:30:00Z');

export const DEMO_API_KEY = 'demo_api_key_for_the_water_monitoring_sandbox';
export const DEMO_ACCOUNT_ID = '4a2f2cc5-2fd9-48f2-99bb-222913290605';

/** `overrides`: as buildDeps takes them (a sender, a resolver). */
export async function startSandbox({ env = {}, now = BENCH_NOW, overrides = {} } = {}) {
  const config = loadConfig({ DATA_DIR: ':memory:', LOG_LEVEL: 'silent', ...env });
  const fixtures = await loadFixtures('fixtures');
  const clock = new ManualClock(now);
  const { store } = await openStore(storeOptionsOf(config, { cacheSize: 2000 }), clock);
  const scenarios = await loadScenarios(config.scenariosDir);
  const deps = await buildDeps(config, store, fixtures, { clock, logger: silentLogger, scenarios, ...overrides });
  await seedFixtures(deps);
  const server = createAppServer(createApp(deps));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${server.address().port}`;
  deps.urls.publicUrl = url;
  return {
    deps,
    store,
    clock,
    url,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await store.close();
    },
  };
}
