import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { parse } from 'yaml';

import { startTestSandbox, stopAllSandboxes } from '../helpers/start-sandbox.js';
import { hasCurl } from './guides.js';
import { cliOnPath } from './paste.js';

interface Step {
  name?: string;
  uses?: string;
  with?: Record<string, unknown>;
  run?: string;
  if?: string;
  env?: Record<string, string>;
  'working-directory'?: string;
}

const WORKFLOW = 'examples/github-actions.yml';
const workflow = parse(readFileSync(WORKFLOW, 'utf8')) as { jobs: Record<string, { env?: Record<string, string>; steps: Step[] }> };
const [job] = Object.values(workflow.jobs);
if (!job) throw new Error(`${WORKFLOW} has no job`);

afterAll(stopAllSandboxes);

/** Runs a command without blocking this process (the sandbox it talks to runs in it). */
function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (status) => resolve({ status, stderr }));
  });
}

describe(`${WORKFLOW}, as a partner copies it`, () => {
  it('uses no npm package that is not published: the CLI runs from the checkout of this repository', () => {
    const sandboxCheckout = job.steps.find((s) => s.uses?.startsWith('actions/checkout') && s.with?.['path'] === 'sandbox');
    expect(sandboxCheckout?.with?.['repository']).toEqual(expect.stringMatching(/\/water-sandbox$/));
    const commands = job.steps.flatMap((s) => (s.run ?? '').split('\n'));
    const npx = commands.flatMap((line) => [...line.matchAll(/\bnpx\b[^|;&)]*/g)].map((m) => m[0].trim()));
    expect(npx.length).toBeGreaterThan(0);
    for (const call of npx) expect(call).toMatch(/^npx --prefix sandbox water-sandbox /);
    expect(commands.join('\n')).not.toMatch(/water-sandbox@/);
  });

  (hasCurl ? it : it.skip)('runs its shell steps, in order, against a started sandbox: the account, the alert, the clock', async () => {
    const sandbox = await startTestSandbox();
    const workspace = mkdtempSync(join(tmpdir(), 'gha-workspace-'));
    mkdirSync(join(workspace, 'sandbox'));
    const runnerTemp = mkdtempSync(join(tmpdir(), 'gha-temp-'));
    const githubEnv = join(runnerTemp, 'github-env');
    writeFileSync(githubEnv, '');
    const npmLog = join(runnerTemp, 'npm.log');
    // npm stands for the partner's own project (npm ci, npm test) and the sandbox checkout's npm ci and
    // npm start (the sandbox the test started plays that part); npx runs the checkout's CLI, and only that.
    const stubs = mkdtempSync(join(tmpdir(), 'gha-bin-'));
    writeFileSync(join(stubs, 'npm'), `#!/bin/sh\necho "$(basename "$PWD"): npm $*" >> ${JSON.stringify(npmLog)}\n`);
    writeFileSync(
      join(stubs, 'npx'),
      `#!/bin/sh\nif [ "$1" = --prefix ] && [ "$(cd "$2" 2>/dev/null && pwd)" = ${JSON.stringify(join(workspace, 'sandbox'))} ] && [ "$3" = water-sandbox ]; then shift 3; exec water-sandbox "$@"; fi\necho "npx $*: not available (only the sandbox checkout's CLI is)" >&2\nexit 1\n`,
    );
    chmodSync(join(stubs, 'npm'), 0o755);
    chmodSync(join(stubs, 'npx'), 0o755);

    const jobEnv = Object.fromEntries(Object.entries(job.env ?? {}).map(([k, v]) => [k, String(v).replace('http://localhost:8080', sandbox.url)]));
    const ran: string[] = [];
    for (const step of job.steps) {
      if (step.run === undefined || step.if !== undefined) continue;
      const fromGithubEnv = Object.fromEntries(
        readFileSync(githubEnv, 'utf8')
          .split('\n')
          .filter((line) => line.includes('='))
          .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
      );
      const env = {
        ...process.env,
        NODE_OPTIONS: '',
        PATH: `${stubs}:${cliOnPath()}:${process.env['PATH'] ?? ''}`,
        GITHUB_WORKSPACE: workspace,
        GITHUB_ENV: githubEnv,
        RUNNER_TEMP: runnerTemp,
        ...jobEnv,
        ...fromGithubEnv,
        ...step.env,
      };
      // GitHub's shell for run steps: bash --noprofile --norc -eo pipefail.
      const result = await run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run], { cwd: join(workspace, step['working-directory'] ?? ''), env });
      expect({ step: step.name ?? step.run, status: result.status, stderr: result.status === 0 ? '' : result.stderr }).toEqual({ step: step.name ?? step.run, status: 0, stderr: '' });
      ran.push(step.name ?? step.run);
    }

    expect(ran).toEqual(expect.arrayContaining(['Start the sandbox', 'Sandbox account', 'Tests that fire an alert on the sandbox']));
    expect(readFileSync(npmLog, 'utf8')).toMatch(/^sandbox: npm start$/m);
    const exported = readFileSync(githubEnv, 'utf8');
    expect(exported).toMatch(/^WATER_API_KEY=\S+$/m);
    expect(exported).toMatch(new RegExp(`^SANDBOX_URL=${sandbox.url}$`, 'm'));

    // The two accounts it made: the one for later steps, and the one that fired an alert, an hour on.
    const { accounts } = await sandbox.deps.store.accounts.list({ limit: 100 });
    const made = await Promise.all(accounts.filter((a) => a.origin !== 'fixture').map((a) => sandbox.deps.store.accounts.get(a.accountId)));
    expect(made).toHaveLength(2);
    expect(made.map((doc) => doc!.locations.length)).toEqual([2, 2]);
    const fired = made.find((doc) => doc!.alerts.length > 0)!;
    expect(fired.alerts).toEqual([expect.objectContaining({ type: 'highLeak', active: false })]);
    expect(Math.round(fired.clock.offsetMs / 1000)).toBe(3600);
  }, 120_000);
});
