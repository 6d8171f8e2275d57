import { once } from 'node:events';
import { rm } from 'node:fs/promises';

export default async function globalTeardown() {
  const redis = globalThis.__testRedis;
  if (!redis) return;
  redis.child.kill('SIGTERM');
  if (redis.child.exitCode === null) await once(redis.child, 'exit');
  await rm(redis.dir, { recursive: true, force: true });
}
