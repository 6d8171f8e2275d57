import { describeProtections, type Config } from './config.js';
import type { Logger } from './core/logger.js';
import { isLoopbackHost } from './core/loopback.js';
import type { TlsMaterial } from './http/tls.js';
import type { ScenarioCatalog } from './scenarios/index.js';
import type { FixtureSet } from './store/fixtures.js';
import type { OpenedStore } from './store/open-store.js';
import { describeRedisUrl } from './store/redis/url.js';

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

/** Where the sandbox listens, and what it serves. */
interface Listening {
  port: number;
  scheme: 'http' | 'https';
  publicUrl: string;
  fixtures: FixtureSet;
  scenarios: ScenarioCatalog;
  tls: TlsMaterial | null;
}

/** What start-up did to the store: its backend, what it found, and what the first replica did to it. */
interface StoreAtStart {
  backend: string;
  origin: OpenedStore['origin'];
  /** This replica seeded the fixtures (the first of the replicas to start). */
  seeded: boolean;
  /** FIXTURES_DIR changed since the stored state was made, and it was kept. */
  changed: boolean;
}

/** What the start-up message and the `listening` log line say. */
export function startupReport(config: Config, at: Listening, store: StoreAtStart): StartupReport {
  return {
    url: `${at.scheme}://localhost:${at.port}`,
    host: config.host,
    publicUrl: at.publicUrl,
    dashboardUrl: `${at.publicUrl}/`,
    docsUrl: `${at.publicUrl}/docs`,
    store: {
      backend: store.backend,
      where: config.redisUrl !== null ? describeRedisUrl(config.redisUrl) : config.dataDir,
      // A Redis store is fresh when this replica seeded it (the first of the replicas to start).
      origin: store.origin === 'existing' && store.seeded ? 'fresh' : store.origin,
    },
    fixturesDir: config.fixturesDir,
    fixtureAccounts: at.fixtures.accounts.length,
    scenariosDir: config.scenariosDir,
    scenarios: [...at.scenarios.keys()],
    fixturesChanged: store.changed,
    reset: config.resetOnStart,
    seed: config.seed,
    tlsCertificate: at.tls?.certFile ?? null,
    protections: describeProtections(config, at.publicUrl),
  };
}

/** The log lines of a sandbox that is up: the sandbox warning, and `listening` with what it runs with. */
export function logListening(
  logger: Logger,
  config: Config,
  report: StartupReport,
  at: { port: number; scheme: string },
): void {
  logger.warn('SANDBOX: this is a sandbox of the water-monitoring API; credentials and data are for testing only');
  logger.info('listening', {
    url: `${at.scheme}://${config.host}:${at.port}`,
    port: at.port,
    publicUrl: report.publicUrl,
    store: report.store,
    seed: config.seed,
    ...(report.tlsCertificate === null ? {} : { tlsCertificate: report.tlsCertificate }),
    protections: {
      hosted: config.hosted,
      blockPrivateEndpoints: config.blockPrivateEndpoints,
      endpointPolicy: config.endpointPolicy,
      adminToken: config.adminToken !== null,
      ...config.limits,
    },
  });
}

/** The start-up message for people: printed at every log level. */
export function describeStartup(report: StartupReport): string {
  const origin = report.store.origin;
  const state =
    origin === 'fresh'
      ? 'new, seeded from the fixtures'
      : origin === 'existing'
        ? 'kept from an earlier run'
        : `migrated from ${origin.migratedFrom} (${origin.accounts} accounts)`;
  const lines = [
    `water-sandbox is running at ${report.url}${report.publicUrl === report.url ? '' : ` (public URL ${report.publicUrl})`}`,
    `  dashboard   ${report.dashboardUrl}   (sign in as demo@example.com / demo-password)`,
    `  present     ${report.dashboardUrl}demo   (the presenter view, for a prospect: docs/demo.md)`,
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
    lines.push(
      `  NOTE        ${report.fixturesDir} changed since this state was made, and the stored state was kept: reload it with POST /sandbox/admin/reset or start with --reset`,
    );
  }
  return lines.join('\n') + '\n';
}
