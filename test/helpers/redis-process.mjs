// Starting a redis-server from the binary on a free loopback port: shared by the Redis test
// helper (redis-server.ts), the global setup of the API suites on Redis, and `npm run bench -- --redis`.
// Plain JavaScript, since jest loads global setup files and the bench runs without a TypeScript transform.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, Socket } from 'node:net';

/** A loopback port nothing listens on now. */
export async function freePort() {
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

/**
 * Spawns redis-server on `port` with its data in `dir` and AOF on (no RDB snapshots), and
 * resolves with the child process once it accepts connections; rejects, with what to install,
 * when the binary is missing, exits or does not listen within 10 s.
 */
export async function startRedisProcess({ port, dir, appendfsync = 'always' }) {
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'yes',
    '--appendfsync',
    appendfsync,
    '--daemonize',
    'no',
    '--loglevel',
    'warning',
  ];
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  let failure = null;
  child.once(
    'error',
    (error) => (failure = new Error(`cannot start redis-server (apt-get install redis-server): ${error.message}`)),
  );
  const deadline = performance.now() + 10_000;
  while (!(await accepts(port))) {
    if (failure) throw failure;
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`redis-server exited with ${child.exitCode ?? child.signalCode} before listening on ${port}`);
    if (performance.now() > deadline) throw new Error(`redis-server did not listen on ${port} within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return child;
}
