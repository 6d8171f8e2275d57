import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { buildInitialData } from './accounts/initial-state.js';
import { ConfigError, loadConfig } from './config.js';
import { systemClock } from './core/clock.js';
import { createJsonLogger } from './core/logger.js';
import { buildDeps } from './deps.js';
import { createApp } from './http/app.js';
import { loadTls } from './http/tls.js';
import { FixtureError, loadFixtures } from './store/fixtures.js';
import { openStore, StoreFileError } from './store/lowdb-store.js';

const SHUTDOWN_GRACE_MS = 10_000;
const DISPATCH_INTERVAL_MS = 250;

/** The process entry: the only module that touches process.env, signals and exit codes. */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createJsonLogger(config.logLevel);
  const fixtures = await loadFixtures(config.fixturesDir);
  const { store, seeded } = await openStore(config.dataFile, () => buildInitialData(fixtures, systemClock.now()));
  const deps = buildDeps(config, store, fixtures, { logger });
  const app = createApp(deps);

  const certDir = config.dataFile === ':memory:' ? join(tmpdir(), 'water-sandbox') : dirname(config.dataFile);
  const tls = await loadTls(config.tls, certDir, systemClock.now());
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

  // Retries fall due on the accounts' clocks; this interval is what notices them in real time.
  const dispatchTimer = setInterval(() => void deps.dispatcher.runDue(), DISPATCH_INTERVAL_MS);

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info('stopping', { signal });
    clearInterval(dispatchTimer);
    const force = setTimeout(() => {
      logger.warn('shutdown grace period over; closing remaining connections');
      server.closeAllConnections();
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    server.close(() => {
      void Promise.race([deps.dispatcher.idle(), new Promise((r) => setTimeout(r, SHUTDOWN_GRACE_MS).unref())])
        .then(() => store.flush())
        .then(() => {
          logger.info('stopped');
          process.exitCode = 0;
        })
        .catch((error: unknown) => {
          logger.error('flushing the store failed', { err: error });
          process.exitCode = 1;
        });
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof FixtureError || error instanceof StoreFileError;
  const detail = known ? (error as Error).message : (error as Error).stack ?? String(error);
  process.stderr.write(`water-sandbox failed to start.\n${detail}\n`);
  process.exitCode = 1;
});
