// The sandbox built from dist/ as server.ts builds it (its server's request and response classes
// adopted by the app, system clock, a lowdb DATA_DIR, the fixtures, the process metrics, the
// request log line at LOG_LEVEL=info written to /dev/null), with
// per-request features turned off as argv[2] says ({"journal": false}, {"readinessEvidence": false}
// or {"requestLog": false}; JSON), in its own process, so that the bench can show what each
// feature costs. Prints `listening <port>`. Run by features.js.
import { seedFixtures } from '../../dist/accounts/lifecycle.js';
import { createApp } from '../../dist/app.js';
import { loadConfig } from '../../dist/config.js';
import { createLogger, logDestination, silentLogger } from '../../dist/core/logger.js';
import { buildDeps } from '../../dist/deps.js';
import { createAppServer } from '../../dist/http/app-prototypes.js';
import { loadScenarios } from '../../dist/scenarios/index.js';
import { storeOptionsOf } from '../../dist/server.js';
import { loadFixtures } from '../../dist/store/fixtures.js';
import { openStore } from '../../dist/store/open-store.js';
import { systemClock } from '../../dist/core/clock.js';

const { requestLog = true, ...off } = JSON.parse(process.argv[2] ?? '{}');
const features = { journal: true, readinessEvidence: true, ...off };
// The served sandbox's logger at the default level; its only lines under load are the request lines.
const logger = requestLog ? createLogger('info', logDestination('/dev/null')) : silentLogger;
const config = loadConfig({ DATA_DIR: process.argv[3], LOG_LEVEL: 'silent' });
const fixtures = await loadFixtures(config.fixturesDir);
const { store } = await openStore(storeOptionsOf(config, { logger: silentLogger }), systemClock);
const deps = await buildDeps(config, store, fixtures, { logger, scenarios: await loadScenarios(config.scenariosDir) });
await seedFixtures(deps);
deps.metrics.collectProcessMetrics();
const server = createAppServer(createApp(deps, features));
server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => store.close().then(() => process.exit(0)));
});
