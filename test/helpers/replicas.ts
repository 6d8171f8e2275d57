import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';

import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/core/logger.js';
import { startSandbox, type RunningSandbox } from '../../src/server.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { loopbackOnlySender } from './loopback-only-sender.js';
import type { TestRedis } from './redis-server.js';
import { eventually } from './waiting.js';

/** Settings every replica of one test shares: one Redis, one key prefix, quick webhooks, loopback receivers. */
export function replicaEnv(
  redis: TestRedis,
  prefix: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    REDIS_URL: redis.url,
    REDIS_PREFIX: prefix,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    ENDPOINT_POLICY: 'https-or-loopback',
    WEBHOOK_BACKOFF_MS: '100',
    ...extra,
  };
}

/** A replica in this process: the whole server of main.ts (startSandbox) with its own Redis connections. */
export async function startReplica(env: Record<string, string>): Promise<RunningSandbox> {
  return startSandbox(loadConfig(env), { logger: silentLogger, sender: loopbackOnlySender });
}

/** A connection to the replicas' Redis, for a test to look at or prepare state directly. */
export async function openSharedStore(redis: TestRedis, prefix: string): Promise<RedisStore> {
  const store = new RedisStore({ url: redis.url, prefix, deliveryLogLimit: 1000, sessionTtlMs: 86_400_000 });
  await eventually(async () => (await store.health()).ok || null);
  return store;
}

/** What npm start, the bin and the image run. */
const MAIN = 'dist/water-sandbox.js';

/** A replica as its own OS process (`node dist/water-sandbox.js`, built by `npm run test:redis`), so a test can kill -9 it. */
export interface ReplicaProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** Everything it wrote to stdout (JSON log lines) and stderr so far. */
  output(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  kill(signal: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts `node dist/water-sandbox.js` and resolves once its start-up message names its port
 * ("water-sandbox is running at http://localhost:<port>"), or, with `waitForBanner: false`,
 * at once (for a replica that cannot become ready yet: give it a PORT).
 */
export async function spawnReplica(
  env: Record<string, string>,
  options: { waitForBanner?: boolean } = {},
): Promise<ReplicaProcess> {
  if (!existsSync(MAIN))
    throw new Error(`${MAIN} is missing: run the Redis suites with npm run test:redis, which builds first`);
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const kill = async (signal: NodeJS.Signals): Promise<number | null> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  let port = Number(env['PORT'] ?? 0);
  if (options.waitForBanner !== false) {
    const match = await Promise.race([
      eventually(() => /water-sandbox is running at http:\/\/localhost:(\d+)/.exec(output), 30_000),
      exited.then((code) => {
        throw new Error(`the replica exited (${String(code)}) before it was ready:\n${output}`);
      }),
    ]);
    port = Number(match[1]);
  }
  return { url: `http://127.0.0.1:${port}`, port, child, output: () => output, exited, kill };
}
