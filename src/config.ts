import { existsSync } from 'node:fs';
import { join } from 'node:path';

import {
  DELIVERY_LOG_LIMITS,
  HOSTED_LIMITS,
  HTTP_DEFAULTS,
  LOCAL_LIMITS,
  PROTECTION_VARIABLES,
  resolveLimits,
} from './config/defaults.js';
import { settingsSchema, type Settings } from './config/settings.js';
import type { Config } from './config/shape.js';
import { isLoopbackHost } from './core/loopback.js';
import { PACKAGE_ROOT } from './core/package-info.js';
import type { TlsConfig } from './http/tls.js';

export {
  DELIVERY_LOG_LIMITS,
  HOSTED_LIMITS,
  HTTP_DEFAULTS,
  LIMIT_VARIABLES,
  LOCAL_LIMITS,
  PROTECTION_VARIABLES,
} from './config/defaults.js';
export { describeProtections } from './config/protections.js';
export { CONFIG_VARIABLES } from './config/settings.js';
export type { Config, Limits } from './config/shape.js';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads the configuration from environment variables. Pure apart from `fileExists`; every
 * problem is collected and reported at once in a ConfigError. FIXTURES_DIR and SCENARIOS_DIR
 * default to ./fixtures and ./scenarios, or to the package's own folders (under `packageRoot`)
 * where the working directory has none: `npx water-sandbox` anywhere runs the demo.
 */
export function loadConfig(
  env: Record<string, string | undefined>,
  fileExists: (path: string) => boolean = existsSync,
  packageRoot: string = PACKAGE_ROOT,
): Config {
  // An empty variable counts as unset, as shells and compose files often produce them.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  // Each variable is parsed on its own, so the rules that combine variables still see the valid ones.
  const problems: string[] = [];
  const valid: Record<string, unknown> = {};
  for (const [key, rule] of Object.entries(settingsSchema.shape)) {
    if (present[key] === undefined) continue;
    const parsed = rule.safeParse(present[key]);
    if (parsed.success) valid[key] = parsed.data;
    else
      problems.push(...parsed.error.issues.map((issue) => `${key}=${JSON.stringify(present[key])}: ${issue.message}`));
  }
  const v = valid as Settings;

  const tls = resolveTls(v, problems, fileExists);
  const headersTimeoutMs = v.HTTP_HEADERS_TIMEOUT_MS ?? HTTP_DEFAULTS.headersTimeoutMs;
  const requestTimeoutMs = v.HTTP_REQUEST_TIMEOUT_MS ?? Math.max(HTTP_DEFAULTS.requestTimeoutMs, headersTimeoutMs);
  if (requestTimeoutMs < headersTimeoutMs)
    problems.push(
      `HTTP_REQUEST_TIMEOUT_MS=${requestTimeoutMs} is shorter than HTTP_HEADERS_TIMEOUT_MS=${headersTimeoutMs}: a request's headers are part of it`,
    );
  if (v.SCENARIO_LOCATION_ID && !v.SCENARIO)
    problems.push('SCENARIO_LOCATION_ID is set but SCENARIO is not: name the scenario to play');
  if (problems.length > 0) throw new ConfigError(problems);
  const hosted = v.PUBLIC_URL !== undefined && !isLoopbackHost(new URL(v.PUBLIC_URL).hostname);

  return Object.freeze({
    port: v.PORT ?? 8080,
    host: v.HOST ?? '127.0.0.1',
    publicUrl: v.PUBLIC_URL ?? null,
    ...dataLocation(v.DATA_DIR, v.DATA_FILE),
    redisUrl: v.REDIS_URL ?? null,
    redisPrefix: v.REDIS_PREFIX ?? 'ws:',
    accountTtlSeconds: v.ACCOUNT_TTL ?? 2592000,
    resetOnStart: v.RESET ?? false,
    fixturesDir: v.FIXTURES_DIR ?? defaultFolder('fixtures', packageRoot, fileExists),
    scenariosDir: v.SCENARIOS_DIR ?? defaultFolder('scenarios', packageRoot, fileExists),
    seed: v.SEED ?? 1,
    tls,
    adminToken: v.ADMIN_TOKEN ?? null,
    accessTokenTtlSeconds: v.ACCESS_TOKEN_TTL ?? 3600,
    confirmationTokenTtlSeconds: v.CONFIRMATION_TOKEN_TTL ?? 600,
    authorizationCodeTtlSeconds: v.AUTHORIZATION_CODE_TTL ?? 300,
    http: Object.freeze({
      headersTimeoutMs,
      requestTimeoutMs,
      keepAliveTimeoutMs: v.HTTP_KEEP_ALIVE_TIMEOUT_MS ?? HTTP_DEFAULTS.keepAliveTimeoutMs,
    }),
    webhook: Object.freeze({
      timeoutMs: v.WEBHOOK_TIMEOUT_MS ?? 5000,
      maxAttempts: v.WEBHOOK_MAX_ATTEMPTS ?? 5,
      backoffMs: v.WEBHOOK_BACKOFF_MS ?? 1000,
      concurrency: v.WEBHOOK_CONCURRENCY ?? 64,
      logLimit: v.WEBHOOK_LOG_LIMIT ?? (hosted ? DELIVERY_LOG_LIMITS.hosted : DELIVERY_LOG_LIMITS.local),
    }),
    endpointPolicy: v.ENDPOINT_POLICY ?? (hosted ? 'https-only' : 'https-or-loopback'),
    blockPrivateEndpoints: v.BLOCK_PRIVATE_ENDPOINTS ?? hosted,
    hosted,
    limits: resolveLimits(v, hosted ? HOSTED_LIMITS : LOCAL_LIMITS),
    metricsOpen: v.METRICS_OPEN ?? (!hosted && v.ADMIN_TOKEN === undefined),
    secureCookies: v.PUBLIC_URL === undefined ? tls.mode !== 'off' : new URL(v.PUBLIC_URL).protocol === 'https:',
    protectionsSet: Object.freeze(PROTECTION_VARIABLES.filter((name) => present[name] !== undefined)),
    logLevel: v.LOG_LEVEL ?? 'info',
    tokenDelivery: v.TOKEN_DELIVERY ?? true,
    startupScenario: v.SCENARIO
      ? Object.freeze({ name: v.SCENARIO, locationId: v.SCENARIO_LOCATION_ID ?? null })
      : null,
  });
}

/** ./<name> when the working directory has it, else the package's own (the shipped demo data). */
function defaultFolder(name: string, packageRoot: string, fileExists: (path: string) => boolean): string {
  const local = `./${name}`;
  return fileExists(local) ? local : join(packageRoot, name);
}

/**
 * DATA_DIR and the 0.1 file. Version 0.1 took DATA_FILE=:memory: for a store in memory; that
 * still works, so CI configurations written for 0.1 keep running.
 */
function dataLocation(
  dataDir: string | undefined,
  dataFile: string | undefined,
): { dataDir: string; legacyDataFile: string | null } {
  if (dataFile === ':memory:') return { dataDir: dataDir ?? ':memory:', legacyDataFile: null };
  const dir = dataDir ?? './data';
  return { dataDir: dir, legacyDataFile: dir === ':memory:' ? null : (dataFile ?? './data/sandbox.json') };
}

function resolveTls(
  v: { TLS?: 'off' | 'self-signed' | 'files' | undefined; TLS_CERT?: string | undefined; TLS_KEY?: string | undefined },
  problems: string[],
  fileExists: (path: string) => boolean,
): TlsConfig {
  const { TLS_CERT: certFile, TLS_KEY: keyFile } = v;
  const filesGiven = certFile !== undefined || keyFile !== undefined;
  if (v.TLS === 'off' && filesGiven)
    problems.push('TLS=off but TLS_CERT or TLS_KEY is set: unset them or drop TLS=off');
  if (v.TLS === 'self-signed' && filesGiven)
    problems.push('TLS=self-signed generates its own certificate: unset TLS_CERT and TLS_KEY, or drop TLS');
  if (v.TLS === 'files' && !filesGiven) problems.push('TLS=files needs TLS_CERT and TLS_KEY');
  if (v.TLS === 'self-signed') return { mode: 'self-signed' };
  if (!filesGiven) return { mode: 'off' };
  if (certFile === undefined) problems.push('TLS_KEY is set without TLS_CERT: give both files');
  if (keyFile === undefined) problems.push('TLS_CERT is set without TLS_KEY: give both files');
  if (certFile !== undefined && !fileExists(certFile))
    problems.push(`TLS_CERT=${JSON.stringify(certFile)}: file not found`);
  if (keyFile !== undefined && !fileExists(keyFile))
    problems.push(`TLS_KEY=${JSON.stringify(keyFile)}: file not found`);
  return { mode: 'files', certFile: certFile ?? '', keyFile: keyFile ?? '' };
}
