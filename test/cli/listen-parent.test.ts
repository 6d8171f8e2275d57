import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { bearer } from '../helpers/demo.js';
import { listenCommand } from '../helpers/listen-command.js';
import { startTestSandbox, stopAllSandboxes } from '../helpers/start-sandbox.js';
import { eventually } from '../helpers/waiting.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * `water-sandbox listen --subscribe all` ends, deleting its subscriptions, when the process that
 * started it ends without passing a signal on: a parent killed with SIGKILL, and `npx`, which
 * is killed with SIGTERM or SIGKILL while the shell it runs the command in stays behind. Each
 * parent is a real process this test kills; `listen` is its child (or grandchild), not ours.
 */

const here = (path: string): string => fileURLToPath(new URL(path, import.meta.url));
const REGISTER_TS = here('../store/crash/register-ts.mjs');
const MAIN = here('../../src/main.ts');

let sandboxUrl: string;
let receiver: WebhookReceiver;
const parents: ChildProcess[] = [];

beforeAll(async () => {
  sandboxUrl = (await startTestSandbox()).url;
  receiver = await WebhookReceiver.start();
});

afterAll(async () => {
  for (const parent of parents) parent.kill('SIGKILL');
  await receiver.close();
  await stopAllSandboxes();
});

async function freshAccount(): Promise<string> {
  const response = await fetch(`${sandboxUrl}/sandbox/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"locations": 2}',
  });
  return ((await response.json()) as { apiKey: string }).apiKey;
}

const subscriptionsOf = async (key: string): Promise<unknown[]> =>
  (
    (await (await fetch(`${sandboxUrl}/v1/subscriptions`, { headers: bearer(key) })).json()) as {
      subscriptions: unknown[];
    }
  ).subscriptions;

/**
 * Starts `command` (the parent), whose descendants write to the same pipes; resolves once the
 * output matches `ready`. `gone` resolves when every process holding the pipes (the parent,
 * and `listen` under it) has ended.
 */
async function startParent(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> },
  ready: RegExp,
): Promise<{ parent: ChildProcess; output: () => string; gone: Promise<unknown> }> {
  const parent = spawn(command, args, {
    cwd: options.cwd,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? tmpdir(), ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  parents.push(parent);
  let output = '';
  parent.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  parent.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const gone = once(parent, 'close');
  await eventually(() => ready.test(output), 20_000).catch((error: unknown) => {
    throw new Error(`${(error as Error).message}; the output was:\n${output}`);
  });
  return { parent, output: () => output, gone };
}

/** Whether a process is running: neither gone nor a zombie (an init that does not reap leaves one). Linux's /proc; elsewhere `gone` says it. */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

const listenArgs = (key: string): string[] =>
  listenCommand({ forwardTo: receiver.url('/hooks'), sandbox: sandboxUrl, apiKey: key }, '--subscribe', 'all');
const twoConfirmed = /confirmed subscription [\s\S]*confirmed subscription /;

it('a parent killed with SIGKILL: listen notices within about a second, deletes its subscriptions and exits', async () => {
  const key = await freshAccount();
  // The parent: a node process that starts listen and waits, as a test runner or a script would.
  const script = `const c = require('node:child_process').spawn(process.execPath, ${JSON.stringify(['--import', REGISTER_TS, MAIN, ...listenArgs(key)])}, { stdio: 'inherit' }); console.log('listen is pid ' + c.pid); setInterval(() => {}, 1e6);`;
  const { parent, output, gone } = await startParent(process.execPath, ['-e', script], {}, twoConfirmed);
  expect(await subscriptionsOf(key)).toHaveLength(2);
  const listenPid = Number(/listen is pid (\d+)/.exec(output())![1]);

  parent.kill('SIGKILL');
  await gone;
  expect(output()).toContain(`the process that started it (pid ${parent.pid!}) has ended: stopping`);
  expect(output().match(/^deleted subscription /gm)).toHaveLength(2);
  expect(await subscriptionsOf(key)).toEqual([]);
  expect(running(listenPid)).toBe(false);
}, 40_000);

/** A project with the CLI installed as npm installs a package: node_modules/water-sandbox, its bin linked in node_modules/.bin. */
function projectWithCli(): string {
  const project = mkdtempSync(join(tmpdir(), 'listen-npx-'));
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'partner-app', version: '1.0.0', private: true }),
  );
  const pkg = join(project, 'node_modules', 'water-sandbox');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(
    join(pkg, 'package.json'),
    JSON.stringify({ name: 'water-sandbox', version: '0.0.0', type: 'module', bin: { 'water-sandbox': 'bin.js' } }),
  );
  // The sources, run through the TypeScript hooks (a clone has no dist/).
  writeFileSync(
    join(pkg, 'bin.js'),
    `#!${process.execPath}\nimport ${JSON.stringify(pathToFileURL(REGISTER_TS).href)};\nawait import(${JSON.stringify(pathToFileURL(MAIN).href)});\n`,
    { mode: 0o755 },
  );
  mkdirSync(join(project, 'node_modules', '.bin'));
  symlinkSync('../water-sandbox/bin.js', join(project, 'node_modules', '.bin', 'water-sandbox'));
  return project;
}

it.each(['SIGTERM', 'SIGKILL'] as const)(
  'npx water-sandbox listen, npx killed with %s: listen deletes its subscriptions and exits',
  async (signal) => {
    const key = await freshAccount();
    const project = projectWithCli();
    // npm's own npx, from the PATH (the node package of another Node version brings none).
    const npx = 'npx';
    const env = {
      npm_config_update_notifier: 'false',
      npm_config_fund: 'false',
      npm_config_audit: 'false',
      npm_config_cache: join(project, '.npm'),
    };
    const { parent, output, gone } = await startParent(
      npx,
      ['water-sandbox', ...listenArgs(key)],
      { cwd: project, env },
      twoConfirmed,
    );
    expect(await subscriptionsOf(key)).toHaveLength(2);

    parent.kill(signal);
    await gone;
    expect(output()).toMatch(/the process that started it \(pid \d+(, npm)?\) has ended: stopping/);
    expect(output().match(/^deleted subscription /gm)).toHaveLength(2);
    expect(await subscriptionsOf(key)).toEqual([]);
  },
  40_000,
);
