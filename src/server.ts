import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { buildInitialData } from './accounts/initial-state.js';
import type { Config } from './config.js';
import { systemClock } from './core/clock.js';
import { createJsonLogger } from './core/logger.js';
import { buildDeps, type Deps, type DepsOverrides } from './deps.js';
import { createApp } from './http/app.js';
import { loadTls } from './http/tls.js';
import { loadScenarios } from './scenarios/catalog.js';
import { runDueSteps } from './scenarios/runner.js';
import { resolveStartupRun, startStartupRun } from './scenarios/startup.js';
import { loadFixtures } from './store/fixtures.js';
import { openStore } from './store/lowdb-store.js';

const SHUTDOWN_GRACE_MS = 10_000;
const DISPATCH_INTERVAL_MS = 250;

export interface RunningSandbox {
  server: Server;
  deps: Deps;
  port: number;
  url: string;
  /** Where the certificate's PEM is, when TLS is on. */
  tlsCertificate: string | null;
  /** Stops accepting requests, lets in-flight requests and webhook attempts finish (bounded), flushes the store. */
  stop(): Promise<void>;
}

/** Loads fixtures and state, listens, and starts the background dispatcher: everything main.ts does but the process wiring. */
export async function startSandbox(config: Config, overrides: DepsOverrides = {}): Promise<RunningSandbox> {
  const clock = overrides.clock ?? systemClock;
  const logger = overrides.logger ?? createJsonLogger(config.logLevel);
  const fixtures = await loadFixtures(config.fixturesDir);
  const scenarios = overrides.scenarios ?? (await loadScenarios(config.scenariosDir));
  const { store, seeded } = await openStore(config.dataFile, () => buildInitialData(fixtures, clock.now()));
  const deps = buildDeps(config, store, fixtures, { ...overrides, clock, logger, scenarios });
  const startupRun = config.startupScenario ? resolveStartupRun(deps, config.startupScenario) : null;
  const app = createApp(deps);

  const certDir = config.dataFile === ':memory:' ? join(tmpdir(), 'water-sandbox') : dirname(config.dataFile);
  const tls = await loadTls(config.tls, certDir, clock.now());
  const server: Server = tls ? createHttpsServer({ cert: tls.cert, key: tls.key }, app) : createHttpServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const scheme = tls ? 'https' : 'http';
  deps.urls.publicUrl = config.publicUrl ?? `${scheme}://localhost:${port}`;
  logger.warn('SANDBOX: this is a sandbox of the water-monitoring API; credentials and data are for testing only');
  logger.info('listening', {
    url: `${scheme}://${config.host}:${port}`,
    port,
    publicUrl: deps.urls.publicUrl,
    dataFile: config.dataFile,
    stateFrom: seeded ? 'fixtures' : 'stored state',
    seed: config.seed,
    ...(tls ? { tlsCertificate: tls.certFile } : {}),
  });

  if (startupRun) await startStartupRun(deps, startupRun);

  // Retries fall due on the accounts' clocks; this interval is what notices them in real time.
  // The same interval applies scenario steps as the accounts' running clocks pass them.
  const dispatchTimer = setInterval(() => {
    void deps.dispatcher.runDue();
    void runDueSteps(deps);
  }, DISPATCH_INTERVAL_MS);
  dispatchTimer.unref();

  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      clearInterval(dispatchTimer);
      // Attempts under way finish; nothing new starts.
      deps.dispatcher.stop();
      const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      force.unref();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await closed;
      clearTimeout(force);
      await Promise.race([deps.dispatcher.idle(), new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref())]);
      await store.flush();
    })();
    return stopping;
  };

  return { server, deps, port, url: `${scheme}://127.0.0.1:${port}`, tlsCertificate: tls?.certFile ?? null, stop };
}
