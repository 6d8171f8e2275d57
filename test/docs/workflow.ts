import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { parse } from 'yaml';

import { cliOnPath } from './paste.js';

/** A step of a GitHub Actions job, as far as running its shell commands needs. */
export interface Step {
  name?: string;
  uses?: string;
  with?: Record<string, unknown>;
  run?: string;
  if?: string;
  env?: Record<string, string>;
  'working-directory'?: string;
}

export interface Job {
  env?: Record<string, string>;
  steps: Step[];
}

/** The first job of a workflow file of examples/. */
export function workflowJob(file: string): Job {
  const workflow = parse(readFileSync(file, 'utf8')) as { jobs: Record<string, Job> };
  const [job] = Object.values(workflow.jobs);
  if (!job) throw new Error(`${file} has no job`);
  return job;
}

/** Runs a command without blocking this process (the sandbox it talks to runs in it). */
function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (status) => resolve({ status, stderr }));
  });
}

export interface WorkflowRun {
  /** The steps that ran, by name (or command), each with its exit status and, when it failed, its stderr. */
  steps: { step: string; status: number | null; stderr: string }[];
  workspace: string;
  /** What the steps wrote to $GITHUB_ENV. */
  githubEnv: string;
  /** Every npm command the steps ran, as `<folder>: npm <args>`. */
  npmLog: string;
}

/**
 * Runs the `run:` steps of a job in order, as GitHub's runner does (bash -eo pipefail, the job's
 * env, what earlier steps wrote to $GITHUB_ENV), against a sandbox the test started. npm stands
 * for the partner's project and for the sandbox checkout's npm ci and npm start (the started
 * sandbox plays that part); `npmTest`, when given, is what the partner's `npm test` runs; npx runs
 * the checkout's CLI (npx --prefix sandbox water-sandbox), and only that. Steps with an `if:`
 * (the ones for a failure) are left out.
 */
export async function runWorkflowSteps(job: Job, sandboxUrl: string, options: { npmTest?: string } = {}): Promise<WorkflowRun> {
  const workspace = mkdtempSync(join(tmpdir(), 'gha-workspace-'));
  mkdirSync(join(workspace, 'sandbox'));
  const runnerTemp = mkdtempSync(join(tmpdir(), 'gha-temp-'));
  const githubEnv = join(runnerTemp, 'github-env');
  writeFileSync(githubEnv, '');
  const npmLog = join(runnerTemp, 'npm.log');
  const stubs = mkdtempSync(join(tmpdir(), 'gha-bin-'));
  const npmTest = options.npmTest === undefined ? '' : `if [ "$1" = test ] && [ "$PWD" = ${JSON.stringify(workspace)} ]; then exec ${options.npmTest}; fi\n`;
  writeFileSync(join(stubs, 'npm'), `#!/bin/sh\necho "$(basename "$PWD"): npm $*" >> ${JSON.stringify(npmLog)}\n${npmTest}`);
  writeFileSync(
    join(stubs, 'npx'),
    `#!/bin/sh\nif [ "$1" = --prefix ] && [ "$(cd "$2" 2>/dev/null && pwd)" = ${JSON.stringify(join(workspace, 'sandbox'))} ] && [ "$3" = water-sandbox ]; then shift 3; exec water-sandbox "$@"; fi\necho "npx $*: not available (only the sandbox checkout's CLI is)" >&2\nexit 1\n`,
  );
  chmodSync(join(stubs, 'npm'), 0o755);
  chmodSync(join(stubs, 'npx'), 0o755);

  const jobEnv = Object.fromEntries(Object.entries(job.env ?? {}).map(([k, v]) => [k, String(v).replace('http://localhost:8080', sandboxUrl)]));
  const steps: WorkflowRun['steps'] = [];
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
    steps.push({ step: step.name ?? step.run, status: result.status, stderr: result.status === 0 ? '' : result.stderr });
  }
  const read = (file: string): string => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return '';
    }
  };
  return { steps, workspace, githubEnv: read(githubEnv), npmLog: read(npmLog) };
}
