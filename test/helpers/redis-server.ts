import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createClient } from 'redis';

import { live } from './live.js';
import { freePort, startRedisProcess } from './redis-process.mjs';

export { freePort };

/**
 * A real redis-server for the *.redis.test.ts suites: REDIS_URL when it is set (CI with its own
 * Redis), otherwise one started from the redis-server binary on a free loopback port, with its
 * own folder and AOF on. `stop`, `kill` (-9) and `start` let a test take Redis away and bring it
 * back on the same port and data.
 */
export interface TestRedis {
  url: string;
  /** Whether this helper started the server (and so may stop, kill and restart it). */
  owned: boolean;
  /** A key prefix no other test uses. */
  prefix(): string;
  start(): Promise<void>;
  /** SIGTERM: Redis writes its AOF and exits. */
  stop(): Promise<void>;
  /** SIGKILL: only what the AOF had synced survives. */
  kill(): Promise<void>;
  /** Stops the server and removes its folder, or, with REDIS_URL, deletes the keys this run made. */
  dispose(): Promise<void>;
}

/**
 * `it` for a test that stops, kills or starts Redis itself: with REDIS_URL set, the suites use a
 * Redis they must not touch, and such a test is skipped, and reported as skipped.
 */
export const itWithOwnRedis: jest.It = process.env['REDIS_URL'] ? it.skip : it;

/**
 * A test Redis (startTestRedis with `options`) for the file or describe that calls this: started
 * before its first test, disposed of after its last. Use it inside tests and hooks (see live.ts).
 */
export function useTestRedis(options?: Parameters<typeof startTestRedis>[0]): TestRedis {
  let redis: TestRedis | null = null;
  beforeAll(async () => {
    redis = await startTestRedis(options);
  });
  afterAll(async () => {
    await redis?.dispose();
    redis = null;
  });
  return live('the test Redis', () => redis);
}

export async function startTestRedis(
  options: { appendfsync?: 'always' | 'everysec'; port?: number } = {},
): Promise<TestRedis> {
  const runPrefix = `ws-test-${randomUUID().slice(0, 8)}`;
  let n = 0;
  const prefix = (): string => `${runPrefix}-${++n}:`;
  const given = options.port === undefined ? process.env['REDIS_URL'] : undefined;
  if (given) {
    const refuse = (): Promise<void> =>
      Promise.reject(new Error('this test needs a Redis it started itself; unset REDIS_URL'));
    return {
      url: given,
      owned: false,
      prefix,
      start: refuse,
      stop: refuse,
      kill: refuse,
      dispose: () => deleteKeys(given, `${runPrefix}-*`),
    };
  }
  const port = options.port ?? (await freePort());
  const dir = await mkdtemp(join(tmpdir(), 'water-redis-'));
  let child: ChildProcess | null = null;
  const exited = (c: ChildProcess): Promise<void> =>
    c.exitCode !== null || c.signalCode !== null
      ? Promise.resolve()
      : new Promise((resolve) => c.once('exit', () => resolve()));
  const start = async (): Promise<void> => {
    child = await startRedisProcess({ port, dir, appendfsync: options.appendfsync ?? 'always' });
  };
  const signal = async (name: NodeJS.Signals): Promise<void> => {
    const c = child;
    if (!c) return;
    child = null;
    c.kill(name);
    await exited(c);
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    owned: true,
    prefix,
    start,
    stop: () => signal('SIGTERM'),
    kill: () => signal('SIGKILL'),
    dispose: async () => {
      await signal('SIGTERM');
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function deleteKeys(url: string, pattern: string): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  try {
    for await (const keys of client.scanIterator({ MATCH: pattern, COUNT: 500 }))
      if (keys.length > 0) await client.del(keys);
  } finally {
    await client.close();
  }
}
