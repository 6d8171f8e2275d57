// `npm start` with nothing changed since the last build, to a healthy sandbox (/healthz 200),
// next to starting the built server directly, in alternating rounds. Target (issue 24): under
// 1 s on the 2-core machine; the ratio says what npm and the up-to-date check add.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

import { median } from './lib/measure.js';

export const title = 'npm start with nothing changed, to healthy';

const ROOT = new URL('..', import.meta.url).pathname;
const START_FLAGS = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
  .scripts.start.split(/\s+/)
  .filter((word) => word.startsWith('--'));
const ROUNDS = 5;

/** Spawns `command` in a process group of its own; resolves with the ms from spawn to /healthz 200, then stops the group. */
async function toHealthy(command, args) {
  const started = performance.now();
  const child = spawn(command, args, {
    cwd: ROOT,
    detached: true,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', DATA_DIR: ':memory:' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const url = await new Promise((resolve, reject) => {
    const heard = (chunk) => {
      output += chunk;
      const match = /running at (http:\/\/localhost:\d+)/.exec(output);
      if (match) resolve(match[1].replace('localhost', '127.0.0.1'));
    };
    child.stdout.on('data', heard);
    child.stderr.on('data', heard);
    child.once('exit', (code) => reject(new Error(`${command} exited with ${code}: ${output}`)));
  });
  for (;;) {
    const res = await fetch(`${url}/healthz`).catch(() => null);
    if (res?.status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const ms = performance.now() - started;
  process.kill(-child.pid, 'SIGTERM');
  await exited;
  return ms;
}

export async function run() {
  // Once, so the build is up to date and the rounds measure the start that has nothing to do.
  await toHealthy('npm', ['start']);
  const npmStart = [];
  const direct = [];
  for (let round = 0; round < ROUNDS; round++) {
    npmStart.push(await toHealthy('npm', ['start']));
    direct.push(await toHealthy(process.execPath, [...START_FLAGS, 'dist/water-sandbox.js']));
  }
  const ratios = npmStart.map((ms, i) => ms / direct[i]);
  console.log(
    `npm start: median ${median(npmStart).toFixed(0)} ms (${Math.min(...npmStart).toFixed(0)}-${Math.max(...npmStart).toFixed(0)}; target < 1000 ms)`,
  );
  console.log(
    `node ${START_FLAGS.join(' ')} dist/water-sandbox.js: median ${median(direct).toFixed(0)} ms (${Math.min(...direct).toFixed(0)}-${Math.max(...direct).toFixed(0)})`,
  );
  console.log(
    `ratio npm start / direct: ${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}), over ${ROUNDS} alternating rounds`,
  );
}
