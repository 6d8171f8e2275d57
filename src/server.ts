import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { fixturesChanged, resetAllAccounts, seedFixtures, sweepIdleAccounts } from './accounts/index.js';
import { createApp } from './app.js';
import { SESSION_TTL_MS } from './auth/index.js';
import { describeProtections, type Config } from './config.js';
import { systemClock } from './core/clock.js';
import { isServiceUnavailable } from './core/errors.js';
import { createLogger, type Logger } from './core/logger.js';
import { VERSION } from './core/package-info.js';
import { buildDeps, type Deps, type DepsOverrides } from './deps.js';
import { BASE_HEADERS } from './http/base-headers.js';
import { loadTls } from './http/tls.js';
import { loadScenarios, resolveStartupRun, runDueSteps, startStartupRun } from './scenarios/index.js';
import { loadFixtures, type FixtureSet } from './store/fixtures.js';
import { openStore, type OpenedStore, type StoreOptions } from './store/open-store.js';
import { describeRedisUrl } from './store/redis/url.js';
import type { Store } from './store/store.js';

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

export interface StartupReport {
  url: string;
  /** The listening address (HOST). */
  host: string;
  publicUrl: string;
  dashboardUrl: string;
  docsUrl: string;
  store: { backend: string; where: string; origin: OpenedStore['origin'] };
  fixturesDir: string;
  fixtureAccounts: number;
  scenariosDir: string;
  scenarios: string[];
  /** Set when FIXTURES_DIR changed since the stored state was made and was not reloaded. */
  fixturesChanged: boolean;
  reset: boolean;
  seed: number;
  tlsCertificate: string | null;
  /** The protections in force and why (describeProtections). */
  protections: string[];
}

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
  const certDir = config.dataDir === ':memory:' ? join(tmpdir(), 'water-sandbox') : config.dataDir;
  const tls = await loadTls(config.tls, certDir, clock.now());
  // Until the store is ready (Redis reachable), every request is answered 503 with the reason,
  // /healthz included; then the sandbox's app takes over. So a replica started before its Redis
  // listens at once, says why it is not ready, and keeps waiting instead of exiting.
  let handle: RequestListener = notReadyYet(store);
  const listener: RequestListener = (req, res) => handle(req, res);
  const limits = serverLimits(config);
  const server: Server = tls ? createHttpsServer({ cert: tls.cert, key: tls.key, ...limits }, listener) : createHttpServer(limits, listener);
  server.keepAliveTimeout = config.http.keepAliveTimeoutMs;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await store.close();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  const scheme = tls ? 'https' : 'http';
  const localUrl = `${scheme}://localhost:${port}`;

  const ready = await prepare(config, store, logger, port, fixtures, { ...overrides, clock, logger, scenarios }).catch(async (error: unknown) => {
    server.close();
    await store.close();
    throw error;
  });
  const { deps, seeded, changed, startupRun } = ready;
  deps.urls.publicUrl = config.publicUrl ?? localUrl;
  deps.metrics.collectProcessMetrics();
  handle = createApp(deps);

  const report: StartupReport = {
    url: localUrl,
    host: config.host,
    publicUrl: deps.urls.publicUrl,
    dashboardUrl: `${deps.urls.publicUrl}/`,
    docsUrl: `${deps.urls.publicUrl}/docs`,
    store: {
      backend: store.backend,
      where: config.redisUrl !== null ? describeRedisUrl(config.redisUrl) : config.dataDir,
      // A Redis store is fresh when this replica seeded it (the first of the replicas to start).
      origin: opened.origin === 'existing' && seeded ? 'fresh' : opened.origin,
    },
    fixturesDir: config.fixturesDir,
    fixtureAccounts: fixtures.accounts.length,
    scenariosDir: config.scenariosDir,
    scenarios: [...scenarios.keys()],
    fixturesChanged: changed,
    reset: config.resetOnStart,
    seed: config.seed,
    tlsCertificate: tls?.certFile ?? null,
    protections: describeProtections(config, deps.urls.publicUrl),
  };
  logger.warn('SANDBOX: this is a sandbox of the water-monitoring API; credentials and data are for testing only');
  logger.info('listening', {
    url: `${scheme}://${config.host}:${port}`,
    port,
    publicUrl: deps.urls.publicUrl,
    store: report.store,
    seed: config.seed,
    ...(tls ? { tlsCertificate: tls.certFile } : {}),
    protections: { hosted: config.hosted, blockPrivateEndpoints: config.blockPrivateEndpoints, endpointPolicy: config.endpointPolicy, adminToken: config.adminToken !== null, ...config.limits },
  });

  if (startupRun) await startStartupRun(deps, startupRun);

  // Retries and scenario steps fall due on the accounts' clocks; this interval notices them in real time.
  const dispatchTimer = setInterval(() => void noticeDueWork(deps), DISPATCH_INTERVAL_MS);
  dispatchTimer.unref();
  const sweepTimer = setInterval(() => {
    sweepIdleAccounts(deps).catch((error: unknown) => {
      if (!isServiceUnavailable(error)) logger.error('deleting idle accounts failed', { err: error });
    });
  }, SWEEP_INTERVAL_MS);
  sweepTimer.unref();

  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      clearInterval(dispatchTimer);
      clearInterval(sweepTimer);
      // Attempts under way finish; nothing new starts, and pending deliveries stay in the store for the next start (or another replica).
      deps.dispatcher.stop();
      // Event streams and `listen` streams never end on their own; server.close() would wait for them.
      // The CLIs of `listen` reconnect (to another replica, or after a restart).
      deps.liveStreams.closeAll();
      deps.relays.closeAll();
      const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      force.unref();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await closed;
      clearTimeout(force);
      await Promise.race([deps.dispatcher.idle(), new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref())]);
      await store.close();
    })();
    return stopping;
  };

  return { server, deps, port, url: `${scheme}://127.0.0.1:${port}`, tlsCertificate: tls?.certFile ?? null, report, stop };
}

/**
 * The server's limits on a client (HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS): past them it
 * answers 408 and closes the connection. Node checks its connections against them periodically;
 * a check a few times per timeout (at most once a second) cuts a slow client close to its limit.
 */
function serverLimits(config: Config): { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number } {
  const { headersTimeoutMs, requestTimeoutMs } = config.http;
  return { headersTimeout: headersTimeoutMs, requestTimeout: requestTimeoutMs, connectionsCheckingInterval: Math.min(1000, Math.ceil(headersTimeoutMs / 4)) };
}

/** Once the store is ready: the dependencies, the fixtures seeded (by the first replica), the start-up scenario found. */
async function prepare(config: Config, store: Store, logger: Logger, port: number, fixtures: FixtureSet, overrides: DepsOverrides) {
  await waitForStore(store, logger, port);
  const deps = await buildDeps(config, store, fixtures, overrides);
  const seeded = await seedFixtures(deps);
  if (config.resetOnStart) await resetAllAccounts(deps);
  const changed = await fixturesChanged(deps);
  if (changed) {
    logger.warn('FIXTURES_DIR changed since the stored state was made; the stored state is kept. Reload with POST /sandbox/admin/reset, or start with --reset (RESET=true)', { fixturesDir: config.fixturesDir });
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
      logger.warn('listening, but waiting for the store; requests are answered 503 until it is ready', { port, reason: health.reason });
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
      res.writeHead(503, { ...BASE_HEADERS, 'Content-Type': 'application/json; charset=utf-8', 'Retry-After': '1' }).end(JSON.stringify(body));
    });
  };
}

/** The start-up message for people: printed at every log level. */
const isLoopbackHost = (host: string): boolean => host === 'localhost' || host === '::1' || /^127\./.test(host);

export function describeStartup(report: StartupReport): string {
  const origin = report.store.origin;
  const state =
    origin === 'fresh' ? 'new, seeded from the fixtures' : origin === 'existing' ? 'kept from an earlier run' : `migrated from ${origin.migratedFrom} (${origin.accounts} accounts)`;
  const lines = [
    `water-sandbox is running at ${report.url}${report.publicUrl === report.url ? '' : ` (public URL ${report.publicUrl})`}`,
    `  dashboard   ${report.dashboardUrl}   (sign in as demo@example.com / demo-password)`,
    `  API docs    ${report.docsUrl}   (OpenAPI at ${report.publicUrl}/openapi.json)`,
    `  demo key    Authorization: Bearer demo_api_key_for_the_water_monitoring_sandbox`,
    `  state       ${report.store.backend === 'memory' ? 'in memory only' : `${report.store.backend} at ${report.store.where}`}: ${state}${report.reset ? '; reset to the fixtures (--reset)' : ''}`,
    `  fixtures    ${report.fixtureAccounts} accounts from ${report.fixturesDir}; scenarios from ${report.scenariosDir}: ${report.scenarios.join(', ') || 'none'}`,
  ];
  lines.push(
    isLoopbackHost(report.host)
      ? `  listening   on ${report.host} only: other machines cannot reach it (HOST=0.0.0.0, or --host 0.0.0.0, to expose it)`
      : `  listening   on ${report.host}: other machines can reach it (HOST=127.0.0.1 keeps it to this machine)`,
  );
  lines.push(...report.protections);
  if (report.tlsCertificate) lines.push(`  TLS         self-signed or given certificate at ${report.tlsCertificate}`);
  if (report.fixturesChanged) {
    lines.push(`  NOTE        ${report.fixturesDir} changed since this state was made, and the stored state was kept: reload it with POST /sandbox/admin/reset or start with --reset`);
  }
  return lines.join('\n') + '\n';
}
