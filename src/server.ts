import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Express } from 'express';

import { fixturesChanged, resetAllAccounts, seedFixtures, sweepIdleAccounts } from './accounts/index.js';
import { createApp } from './app.js';
import { SESSION_TTL_MS } from './auth/index.js';
import type { Config } from './config.js';
import { systemClock } from './core/clock.js';
import { isServiceUnavailable } from './core/errors.js';
import { createLogger, type Logger } from './core/logger.js';
import { VERSION } from './core/package-info.js';
import { buildDeps, type Deps, type DepsOverrides } from './deps.js';
import { appPrototypes } from './http/app-prototypes.js';
import { BASE_HEADERS } from './http/base-headers.js';
import { loadTls, type TlsMaterial } from './http/tls.js';
import { loadScenarios, resolveStartupRun, runDueSteps, startStartupRun } from './scenarios/index.js';
import { logListening, startupReport, type StartupReport } from './startup-report.js';
import { loadFixtures, type FixtureSet } from './store/fixtures.js';
import { openStore, type StoreOptions } from './store/open-store.js';
import type { Store } from './store/store.js';

export { describeStartup, type StartupReport } from './startup-report.js';

const SHUTDOWN_GRACE_MS = 10_000;
const DISPATCH_INTERVAL_MS = 250;
const DUE_ACCOUNTS_PER_TICK = 1000;
const SWEEP_INTERVAL_MS = 60_000;
/** Accounts the embedded store keeps loaded; the rest stay on disk until used. */
const ACCOUNT_CACHE_SIZE = 500;
/**
 * And at most this many characters of their files (the Redis store: of their documents), so
 * that accounts filled to their limits cannot fill the 256 MB heap `serve` runs with.
 */
export const ACCOUNT_CACHE_BYTES = 32 * 1024 * 1024;

export interface RunningSandbox {
  server: Server;
  deps: Deps;
  port: number;
  url: string;
  /** Where the certificate's PEM is, when TLS is on. */
  tlsCertificate: string | null;
  report: StartupReport;
  /** Stops accepting requests, lets in-flight requests and webhook attempts finish (bounded), flushes the store. */
  stop(): Promise<void>;
}

/**
 * One look-up of the accounts with work due now (deliveries or scenario steps), shared by the
 * webhook dispatcher and the scenario runner: with Redis, each replica asks once per tick.
 * Never rejects.
 */
export async function noticeDueWork(deps: Deps): Promise<void> {
  let due: string[];
  try {
    due = await deps.store.accounts.due(deps.clock.now().getTime(), DUE_ACCOUNTS_PER_TICK);
  } catch (error) {
    if (!isServiceUnavailable(error)) deps.logger.error('looking for due work failed', { err: error });
    return;
  }
  deps.dispatcher.kickAll(due);
  await runDueSteps(deps, due);
}

/** The store a configuration names; tests and benches keep more accounts loaded (`cacheSize`). */
export function storeOptionsOf(config: Config, extra: { cacheSize?: number; logger?: Logger } = {}): StoreOptions {
  return {
    dataDir: config.dataDir,
    legacyDataFile: config.legacyDataFile,
    redisUrl: config.redisUrl,
    redisPrefix: config.redisPrefix,
    deliveryLogLimit: config.webhook.logLimit,
    sessionTtlMs: SESSION_TTL_MS,
    maxSessions: config.limits.sessions,
    cacheSize: extra.cacheSize ?? ACCOUNT_CACHE_SIZE,
    cacheBytes: ACCOUNT_CACHE_BYTES,
    accountLifetimeMs: config.accountTtlSeconds * 1000,
    limits: { accountBytes: config.limits.accountBytes, pendingDeliveries: config.limits.pendingDeliveries },
    accountWriteRate: config.limits.accountWriteRate,
    ...(extra.logger === undefined ? {} : { logger: extra.logger }),
  };
}

/** Loads fixtures and state, listens, and starts the background work: everything main.ts does but the process wiring. */
export async function startSandbox(config: Config, overrides: DepsOverrides = {}): Promise<RunningSandbox> {
  const clock = overrides.clock ?? systemClock;
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const fixtures = await loadFixtures(config.fixturesDir);
  const scenarios = overrides.scenarios ?? (await loadScenarios(config.scenariosDir));
  const opened = await openStore(storeOptionsOf(config, { logger }), clock);
  const { store } = opened;
  const tls = await loadTls(
    config.tls,
    config.dataDir === ':memory:' ? join(tmpdir(), 'water-sandbox') : config.dataDir,
    clock.now(),
  );
  const front = frontServer(config, store, tls);
  await listen(front.server, config).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  const port = (front.server.address() as AddressInfo).port;
  const scheme = tls ? 'https' : 'http';

  const ready = await prepare(config, store, logger, port, fixtures, { ...overrides, clock, logger, scenarios }).catch(
    async (error: unknown) => {
      front.server.close();
      await store.close();
      throw error;
    },
  );
  const { deps, startupRun } = ready;
  deps.urls.publicUrl = config.publicUrl ?? `${scheme}://localhost:${port}`;
  deps.metrics.collectProcessMetrics();
  front.serve(createApp(deps));

  const report = startupReport(
    config,
    { port, scheme, publicUrl: deps.urls.publicUrl, fixtures, scenarios, tls },
    { backend: store.backend, origin: opened.origin, ...ready },
  );
  logListening(logger, config, report, { port, scheme });
  if (startupRun) await startStartupRun(deps, startupRun);
  const stopBackgroundWork = startBackgroundWork(deps, logger);

  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopping ??= shutdown(front.server, deps, stopBackgroundWork);
    return stopping;
  };
  return {
    server: front.server,
    deps,
    port,
    url: `${scheme}://127.0.0.1:${port}`,
    tlsCertificate: tls?.certFile ?? null,
    report,
    stop,
  };
}

/**
 * The HTTP(S) server, answering 503 with the reason until `serve` hands it the app. So a replica
 * started before its Redis listens at once, says why it is not ready (/healthz included), and
 * keeps waiting instead of exiting.
 */
function frontServer(
  config: Config,
  store: Store,
  tls: TlsMaterial | null,
): { server: Server; serve: (app: Express) => void } {
  let handle: RequestListener = notReadyYet(store);
  const listener: RequestListener = (req, res) => handle(req, res);
  const prototypes = appPrototypes();
  const options = {
    ...serverLimits(config),
    IncomingMessage: prototypes.IncomingMessage,
    ServerResponse: prototypes.ServerResponse,
  };
  const server: Server = tls
    ? createHttpsServer({ cert: tls.cert, key: tls.key, ...options }, listener)
    : createHttpServer(options, listener);
  server.keepAliveTimeout = config.http.keepAliveTimeoutMs;
  return {
    server,
    serve: (app) => {
      prototypes.adopt(app);
      handle = app;
    },
  };
}

/** Listens on PORT and HOST; rejects with the server's error (a port in use, an address not here). */
function listen(server: Server, config: Config): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** The timers of the background work: due retries and scenario steps, idle accounts. Returns what stops them. */
function startBackgroundWork(deps: Deps, logger: Logger): () => void {
  // Retries and scenario steps fall due on the accounts' clocks; this interval notices them in real time.
  const dispatchTimer = setInterval(() => void noticeDueWork(deps), DISPATCH_INTERVAL_MS);
  dispatchTimer.unref();
  const sweepTimer = setInterval(() => {
    sweepIdleAccounts(deps).catch((error: unknown) => {
      if (!isServiceUnavailable(error)) logger.error('deleting idle accounts failed', { err: error });
    });
  }, SWEEP_INTERVAL_MS);
  sweepTimer.unref();
  return () => {
    clearInterval(dispatchTimer);
    clearInterval(sweepTimer);
  };
}

/** Stops accepting requests, lets in-flight requests and webhook attempts finish (each within SHUTDOWN_GRACE_MS), closes the store. */
async function shutdown(server: Server, deps: Deps, stopBackgroundWork: () => void): Promise<void> {
  stopBackgroundWork();
  // Attempts under way finish; nothing new starts, and pending deliveries stay in the store for the next start (or another replica).
  deps.dispatcher.stop();
  // Event streams and `listen` streams never end on their own; server.close() would wait for them.
  // The CLIs of `listen` reconnect (to another replica, or after a restart).
  deps.liveStreams.closeAll();
  deps.demoStreams.closeAll();
  deps.relays.closeAll();
  deps.mcpWaits.closeAll();
  const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
  force.unref();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  await closed;
  clearTimeout(force);
  await Promise.race([
    deps.dispatcher.idle(),
    new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref()),
  ]);
  await deps.store.close();
}

/**
 * The server's limits on a client (HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS): past them it
 * answers 408 and closes the connection. Node checks its connections against them periodically;
 * a check a few times per timeout (at most once a second) cuts a slow client close to its limit.
 */
function serverLimits(config: Config): {
  headersTimeout: number;
  requestTimeout: number;
  connectionsCheckingInterval: number;
} {
  const { headersTimeoutMs, requestTimeoutMs } = config.http;
  return {
    headersTimeout: headersTimeoutMs,
    requestTimeout: requestTimeoutMs,
    connectionsCheckingInterval: Math.min(1000, Math.ceil(headersTimeoutMs / 4)),
  };
}

/** Once the store is ready: the dependencies, the fixtures seeded (by the first replica), the start-up scenario found. */
async function prepare(
  config: Config,
  store: Store,
  logger: Logger,
  port: number,
  fixtures: FixtureSet,
  overrides: DepsOverrides,
) {
  await waitForStore(store, logger, port);
  const deps = await buildDeps(config, store, fixtures, overrides);
  const seeded = await seedFixtures(deps);
  if (config.resetOnStart) await resetAllAccounts(deps);
  const changed = await fixturesChanged(deps);
  if (changed) {
    logger.warn(
      'FIXTURES_DIR changed since the stored state was made; the stored state is kept. Reload with POST /sandbox/admin/reset, or start with --reset (RESET=true)',
      { fixturesDir: config.fixturesDir },
    );
  }
  const startupRun = config.startupScenario ? await resolveStartupRun(deps, config.startupScenario) : null;
  return { deps, seeded, changed, startupRun };
}

/** How often a replica waiting for its store checks it again. */
const STORE_WAIT_POLL_MS = 250;
const STORE_QUIET_WAIT_MS = 1000;

/** Resolves once the store can serve (at once for the embedded store; when Redis answers for Redis). */
async function waitForStore(store: Store, logger: Logger, port: number): Promise<void> {
  let health = await store.health();
  let waitedMs = 0;
  let warned = false;
  while (!health.ok) {
    // A connection that is still being made is normal; one that takes longer is worth a line.
    if (!warned && waitedMs >= STORE_QUIET_WAIT_MS) {
      logger.warn('listening, but waiting for the store; requests are answered 503 until it is ready', {
        port,
        reason: health.reason,
      });
      warned = true;
    }
    await new Promise((resolve) => setTimeout(resolve, STORE_WAIT_POLL_MS));
    waitedMs += STORE_WAIT_POLL_MS;
    health = await store.health();
  }
  if (warned) logger.info('the store is ready', { store: store.backend });
}

/** The answer to every request while the store is not ready: 503 with the reason, and Retry-After. */
function notReadyYet(store: Store): RequestListener {
  return (req, res) => {
    void store.health().then((health) => {
      const reason = health.ok ? 'loading the fixtures' : (health.reason ?? 'the store is not ready');
      const body =
        req.url?.split('?')[0] === '/healthz'
          ? { status: 'starting', version: VERSION, store: store.backend, reason }
          : { error: 'service_unavailable', message: `The sandbox is starting (${reason}); try again in a moment` };
      res
        .writeHead(503, { ...BASE_HEADERS, 'Content-Type': 'application/json; charset=utf-8', 'Retry-After': '1' })
        .end(JSON.stringify(body));
    });
  };
}
