// Starts one redis-server for the API suites run on Redis (jest.redis-api.config.js) and hands its
// URL to the test workers as TEST_REDIS_URL; with REDIS_URL set, that Redis is used instead.
// Plain JavaScript: jest loads global setup files without the suites' TypeScript transform.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp } from 'node:fs/promises';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

async function freePort() {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const accepts = (port) =>
  new Promise((resolve) => {
    const socket = new Socket();
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1');
  });

export default async function globalSetup() {
  if (process.env.REDIS_URL) {
    process.env.TEST_REDIS_URL = process.env.REDIS_URL;
    return;
  }
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'water-redis-api-'));
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes', '--appendfsync', 'everysec'], { stdio: 'ignore' });
  child.once('error', (error) => console.error(`cannot start redis-server (apt-get install redis-server): ${error.message}`));
  const deadline = performance.now() + 10_000;
  while (!(await accepts(port))) {
    if (performance.now() > deadline || child.exitCode !== null) throw new Error('redis-server did not start');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  process.env.TEST_REDIS_URL = `redis://127.0.0.1:${port}`;
  globalThis.__testRedis = { child, dir };
}
