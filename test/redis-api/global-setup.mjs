// Starts one redis-server for the API suites run on Redis (jest.redis-api.config.js) and hands its
// URL to the test workers as TEST_REDIS_URL; with REDIS_URL set, that Redis is used instead.
// Plain JavaScript: jest loads global setup files without the suites' TypeScript transform.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { freePort, startRedisProcess } from '../helpers/redis-process.mjs';

export default async function globalSetup() {
  if (process.env.REDIS_URL) {
    process.env.TEST_REDIS_URL = process.env.REDIS_URL;
    return;
  }
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'water-redis-api-'));
  const child = await startRedisProcess({ port, dir, appendfsync: 'everysec' });
  process.env.TEST_REDIS_URL = `redis://127.0.0.1:${port}`;
  globalThis.__testRedis = { child, dir };
}
