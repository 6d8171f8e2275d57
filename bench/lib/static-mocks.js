// The static baselines the sandbox is measured against, each in its own process as the sandbox
// is: a bare Express 5 route (bare-server.js) and Prism, the OpenAPI mock server, serving a
// static example. Prism is large (about 75 MB, 200 packages) and only the bench needs it, so it
// is not a dev dependency: the bench installs the pinned version on first use into
// node_modules/.cache (gone with the next `npm ci`), and never from `npm test`.
import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const PRISM_VERSION = '5.16.0';
const PRISM_DIR = new URL(`../../node_modules/.cache/water-sandbox-bench/prism-${PRISM_VERSION}/`, import.meta.url)
  .pathname;
const PRISM_MAIN = join(PRISM_DIR, 'node_modules/@stoplight/prism-cli/dist/index.js');

/** Installs @stoplight/prism-cli (pinned) into the bench's cache unless it is there; returns its entry file. */
export function ensurePrism() {
  if (existsSync(PRISM_MAIN)) return PRISM_MAIN;
  console.log(`installing @stoplight/prism-cli@${PRISM_VERSION} for the bench into ${PRISM_DIR} (once; about 10 s)`);
  mkdirSync(PRISM_DIR, { recursive: true });
  // --ignore-scripts: Prism needs none, and one of its dependencies would phone home at install.
  execFileSync(
    'npm',
    [
      'install',
      '--prefix',
      PRISM_DIR,
      '--no-save',
      '--no-package-lock',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      `@stoplight/prism-cli@${PRISM_VERSION}`,
    ],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  if (!existsSync(PRISM_MAIN)) throw new Error(`npm did not install @stoplight/prism-cli into ${PRISM_DIR}`);
  return PRISM_MAIN;
}

async function freePort() {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Spawns `args` with node and stops it on stop(); `ready` resolves to the base URL. */
function child(args, ready) {
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PORT: '' } });
  let output = '';
  proc.stdout.on('data', (chunk) => (output += chunk));
  proc.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((_, reject) =>
    proc.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${output}`))),
  );
  exited.catch(() => {});
  return {
    pid: proc.pid,
    output: () => output,
    url: Promise.race([ready(() => output), exited]),
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const gone = once(proc, 'exit');
      proc.kill('SIGTERM');
      await gone;
    },
  };
}

async function poll(url, headers = {}) {
  for (let i = 0; i < 2000; i++) {
    const res = await fetch(url, { headers }).catch(() => null);
    if (res) {
      await res.arrayBuffer();
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${url} never answered`);
}

/** Runs a script of this folder that prints `listening <port>`; resolves to { url, pid, stop }. */
export async function startListening(script, args, nodeFlags = []) {
  const proc = child([...nodeFlags, new URL(script, import.meta.url).pathname, ...args], async (output) => {
    for (;;) {
      const match = /listening (\d+)/.exec(output());
      if (match) return `http://127.0.0.1:${match[1]}`;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  });
  return { url: await proc.url, pid: proc.pid, stop: proc.stop };
}

/** A bare Express 5 app in its own process (Node's default flags); `bodies`: name → JSON body. Returns { url(name), pid, stop }. */
export async function startBareProcess(bodies) {
  const file = join(tmpdir(), `water-sandbox-bench-bare-${process.pid}.json`);
  writeFileSync(file, JSON.stringify(bodies));
  const bare = await startListening('./bare-server.js', [file]);
  return { pid: bare.pid, url: (name) => `${bare.url}/bare/${name}`, stop: bare.stop };
}

/**
 * Prism (`prism mock`, static examples, its logging silenced: Prism at its fastest) in its own
 * process, serving `document` (an OpenAPI document, as an object). `probe`: a path and headers
 * it answers, polled until it does.
 */
export async function startPrism(document, probe) {
  const main = ensurePrism();
  const file = join(tmpdir(), `water-sandbox-bench-prism-${process.pid}.json`);
  writeFileSync(file, JSON.stringify(document));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const proc = child([main, 'mock', '-h', '127.0.0.1', '-p', String(port), '-v', 'silent', file], async () => {
    await poll(`${base}${probe.path}`, probe.headers);
    return base;
  });
  await proc.url;
  return { pid: proc.pid, url: base, stop: proc.stop };
}
