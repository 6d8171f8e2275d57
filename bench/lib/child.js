// A sandbox started from dist/water-sandbox.js as its own process, as `npm start` runs it, so its memory
// and start-up time are its own and not the load generator's.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const MAIN = new URL('../../dist/water-sandbox.js', import.meta.url).pathname;
/** The V8 flags of `npm start` and the image (package.json), so the bench measures what users run. */
export const START_FLAGS = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))
  .scripts.start.split('&&')
  .at(-1)
  .trim()
  .split(/\s+/)
  .filter((word) => word.startsWith('--'));

/**
 * Starts the sandbox with `env` (PORT=0 by default) and resolves once /healthz answers 200;
 * `nodeArgs` e.g. --cpu-prof; `main` the entry point (the tests run the sources: see test/security/hostile-tenant.test.ts).
 */
export async function startChild(env = {}, nodeArgs = [], main = MAIN) {
  const started = performance.now();
  const child = spawn(process.execPath, [...START_FLAGS, ...nodeArgs, main], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const match = /running at (http:\/\/localhost:\d+)/.exec(stderr);
      if (match) resolve(match[1].replace('localhost', '127.0.0.1'));
    });
    child.once('exit', (code) => reject(new Error(`the sandbox exited with ${code}: ${stderr}`)));
  });
  for (;;) {
    const res = await fetch(`${url}/healthz`).catch(() => null);
    if (res?.status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const readyMs = performance.now() - started;
  return {
    url,
    readyMs,
    pid: child.pid,
    /** Whether the process still runs, and its standard error so far (why it ended, if it did). */
    alive: () => child.exitCode === null && child.signalCode === null,
    stderr: () => stderr,
    /** Resident memory of the sandbox process, in MB (Linux /proc). */
    rssMb() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) / 1024;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
