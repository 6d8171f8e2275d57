import { spawn } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import { parse, parseDocument } from 'yaml';

/**
 * GitHub Actions, as far as the workflows of examples/ and docs/ci.md and this repository's two
 * actions (action.yml, readiness/action.yml) need it, run on this machine as GitHub's runner
 * runs them: each `run:` step in `bash --noprofile --norc -eo pipefail` with the job's
 * environment; the files GitHub gives each step (GITHUB_OUTPUT, GITHUB_ENV, GITHUB_PATH,
 * GITHUB_STEP_SUMMARY) in a temporary folder, read back after the step as the runner does;
 * `${{ }}` expressions substituted from inputs, step outputs, `github` and `runner`; `if:`
 * conditions; a composite action's steps run from its folder (`github.action_path`), its
 * outputs taken from its steps'; the workflow commands the steps print (annotations, masks)
 * collected; and at the end of the job, every process the job left running killed, found by
 * the RUNNER_TRACKING_ID the runner puts in each step's environment.
 *
 * Stand-ins: `npm` logs its calls (the partner's `npm ci`, and the action's `npm ci`), runs
 * `npmTest` for the partner's `npm test`, and for the action's `npm run build` writes a
 * dist/water-sandbox.js that runs this checkout's sources (jest builds no dist/). Other actions
 * (actions/checkout, setup-node, upload-artifact) are recorded, not run.
 */

/** A step of a job or of a composite action. */
export interface Step {
  name?: string;
  id?: string;
  uses?: string;
  with?: Record<string, unknown>;
  run?: string;
  shell?: string;
  if?: string;
  // YAML reads `RETRIES: 3` as a number.
  env?: Record<string, string | number | boolean>;
  'working-directory'?: string;
}

export interface Job {
  env?: Record<string, string>;
  steps: Step[];
}

interface ActionFile {
  inputs?: Record<string, { default?: string; required?: boolean }>;
  outputs?: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

/** The first job of a workflow, from a file or from its text. */
export function workflowJob(file: string): Job {
  return jobOf(readFileSync(file, 'utf8'), file);
}

export function jobOf(text: string, where: string): Job {
  const workflow = parse(text) as { jobs?: Record<string, Job> };
  const [job] = Object.values(workflow.jobs ?? {});
  if (!job) throw new Error(`${where} has no job`);
  return job;
}

/** What a step printed as workflow commands: annotations (`::error title=...::message`) and masks. */
export interface Annotation {
  level: 'error' | 'warning' | 'notice';
  title: string | null;
  message: string;
}

export interface StepRun {
  /** The step's name (or command, or action), and for a step of an action, the action's step after a slash. */
  step: string;
  status: number | null;
  /** What it printed, stdout then stderr. */
  output: string;
}

export interface WorkflowRun {
  steps: StepRun[];
  /** Steps left out: other actions, and steps whose `if:` was false. */
  skipped: string[];
  workspace: string;
  runnerTemp: string;
  /** Everything the steps wrote to GITHUB_ENV, in order. */
  githubEnv: string;
  /** The job's step summary: what the steps appended to GITHUB_STEP_SUMMARY. */
  summary: string;
  annotations: Annotation[];
  masked: string[];
  /** The outputs of each step that has an id. */
  outputs: Record<string, Record<string, string>>;
  /** Every npm command the steps ran, as `<folder>: npm <args>`. */
  npmLog: string;
  /** Whether a step failed (and the job with it). */
  failed: boolean;
  /** The RUNNER_TRACKING_ID of the job's steps. */
  trackingId: string;
}

export interface WorkflowOptions {
  /** The folder GitHub downloads `<owner>/water-sandbox@<ref>` into (actionFolder()); its actions stand for every `uses:` of this repository. */
  actions?: string;
  /** What the partner's `npm test` runs, as a shell command. */
  npmTest?: string;
  /** Environment the job starts with, over the runner's. */
  env?: Record<string, string>;
}

const here = (path: string): string => resolve(path);

/**
 * The folder of this repository's actions as GitHub checks it out for a `uses:` (the
 * repository's files at a ref; no dist/ until the action builds it), made of this checkout's
 * action files and package.json; `port`, when given, is the default of the sandbox's port.
 */
export function actionFolder(options: { port?: number } = {}): string {
  const root = mkdtempSync(join(tmpdir(), 'gha-action-water-sandbox-'));
  const action = parseDocument(readFileSync(here('action.yml'), 'utf8'));
  // A runner's port 8080 is free; this machine's may not be: the test gives a free one as the default.
  if (options.port !== undefined) action.setIn(['inputs', 'port', 'default'], String(options.port));
  writeFileSync(join(root, 'action.yml'), action.toString());
  mkdirSync(join(root, 'readiness'));
  copyFileSync(here('readiness/action.yml'), join(root, 'readiness', 'action.yml'));
  copyFileSync(here('package.json'), join(root, 'package.json'));
  return root;
}

/** The built CLI's stand-in: this checkout's sources through the TypeScript hooks (see test/helpers/cli-process.ts). */
function bundleStandIn(): string {
  return `import ${JSON.stringify(pathToFileURL(here('test/store/crash/register-ts.mjs')).href)};\nawait import(${JSON.stringify(pathToFileURL(here('src/main.ts')).href)});\n`;
}

/** Runs bash on a script file, collecting its output; the process it starts in the background must not hold the pipes. */
function bash(
  script: string,
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
      ...options,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

/** NAME=value lines and NAME<<DELIMITER blocks, as GitHub reads GITHUB_ENV and GITHUB_OUTPUT. */
export function parseGithubFile(text: string): [string, string][] {
  const pairs: [string, string][] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2]!, i + 1);
      if (end < 0) throw new Error(`${heredoc[1]!}<<${heredoc[2]!} has no end line`);
      pairs.push([heredoc[1]!, lines.slice(i + 1, end).join('\n')]);
      i = end;
    } else if (line.includes('=')) pairs.push([line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]);
    else if (line.trim() !== '') throw new Error(`not NAME=value: ${line}`);
  }
  return pairs;
}

const read = (file: string): string => (existsSync(file) ? readFileSync(file, 'utf8') : '');

/** What an expression can read: the contexts GitHub gives a workflow step or an action's step. */
interface Contexts {
  inputs: Record<string, string>;
  steps: Record<string, { outputs: Record<string, string> }>;
  github: Record<string, string>;
  runner: Record<string, string>;
  env: Record<string, string>;
  failed: boolean;
}

/** One expression: a context's value, a quoted string, ==, !=, &&, ||, !, and always(), success(), failure(), cancelled(). */
function evaluate(expression: string, ctx: Contexts): string | boolean {
  const expr = expression.trim();
  for (const op of ['||', '&&']) {
    const at = expr.indexOf(op);
    if (at >= 0) {
      const left = evaluate(expr.slice(0, at), ctx);
      const right = (): string | boolean => evaluate(expr.slice(at + 2), ctx);
      return op === '||' ? truthy(left) || truthy(right()) : truthy(left) && truthy(right());
    }
  }
  const comparison = /^(.*?)\s*(==|!=)\s*(.*)$/.exec(expr);
  if (comparison) {
    const same = String(evaluate(comparison[1]!, ctx)) === String(evaluate(comparison[3]!, ctx));
    return comparison[2] === '==' ? same : !same;
  }
  if (expr.startsWith('!')) return !truthy(evaluate(expr.slice(1), ctx));
  if (expr === 'always()') return true;
  // A job of these tests is never cancelled.
  if (expr === 'cancelled()') return false;
  if (expr === 'success()') return !ctx.failed;
  if (expr === 'failure()') return ctx.failed;
  const quoted = /^'(.*)'$/.exec(expr);
  if (quoted) return quoted[1]!.replace(/''/g, "'");
  const path = expr.split('.');
  const [context, ...rest] = path;
  let value: unknown = (ctx as unknown as Record<string, unknown>)[context!];
  if (value === undefined || context === 'failed')
    throw new Error(`the test's runner does not know the expression ${expr}`);
  for (const key of rest) value = (value as Record<string, unknown> | undefined)?.[key];
  return typeof value === 'string' ? value : '';
}

const truthy = (value: string | boolean): boolean => value !== false && value !== '';

/** A text with `${{ }}` expressions replaced by their values. */
function substitute(text: string, ctx: Contexts): string {
  return text.replace(/\$\{\{(.*?)\}\}/g, (_, expr: string) => String(evaluate(expr, ctx)));
}

/** Whether a step runs: its `if:` (with or without `${{ }}`); no `if:` is success(). */
function runs(step: Step, ctx: Contexts): boolean {
  if (step.if === undefined) return !ctx.failed;
  const condition = step.if.trim().replace(/^\$\{\{(.*)\}\}$/, '$1');
  // As GitHub does, a condition without a status function holds only while no step failed.
  const withStatus = /\b(always|success|failure|cancelled)\(\)/.test(condition);
  return truthy(evaluate(condition, ctx)) && (withStatus || !ctx.failed);
}

/** The uses: of one of this repository's actions: <owner>/water-sandbox@<ref> or <owner>/water-sandbox/readiness@<ref>. */
export const OWN_ACTION = /^[\w.-]+\/water-sandbox(\/readiness)?@[\w./-]+$/;

/**
 * Runs a job's steps in order, as GitHub's runner does (see the top of this file), and at its
 * end kills what the job left running.
 */
export async function runWorkflowSteps(job: Job, options: WorkflowOptions = {}): Promise<WorkflowRun> {
  const workspace = mkdtempSync(join(tmpdir(), 'gha-workspace-'));
  const runnerTemp = mkdtempSync(join(tmpdir(), 'gha-temp-'));
  const npmLog = join(runnerTemp, '.npm.log');
  const stubs = mkdtempSync(join(tmpdir(), 'gha-bin-'));
  const standIn = join(stubs, 'water-sandbox.js');
  writeFileSync(standIn, bundleStandIn());
  const npmTest =
    options.npmTest === undefined
      ? ''
      : `if [ "$1" = test ] && [ "$PWD" = ${JSON.stringify(workspace)} ]; then exec ${options.npmTest}; fi\n`;
  const build = `if [ "$1" = run ] && [ "$2" = build ] && [ -f action.yml ]; then mkdir -p dist && cp ${JSON.stringify(standIn)} dist/water-sandbox.js; fi\n`;
  writeFileSync(
    join(stubs, 'npm'),
    `#!/bin/sh\necho "$(basename "$PWD"): npm $*" >> ${JSON.stringify(npmLog)}\n${npmTest}${build}`,
  );
  writeFileSync(join(stubs, 'npx'), '#!/bin/sh\necho "npx $*: not available in this job" >&2\nexit 1\n');
  chmodSync(join(stubs, 'npm'), 0o755);
  chmodSync(join(stubs, 'npx'), 0o755);

  const trackingId = `water-sandbox-test-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const result: WorkflowRun = {
    steps: [],
    skipped: [],
    workspace,
    runnerTemp,
    githubEnv: '',
    summary: '',
    annotations: [],
    masked: [],
    outputs: {},
    npmLog: '',
    failed: false,
    trackingId,
  };
  const jobEnv: Record<string, string> = { ...options.env, ...job.env };
  const addedPath: string[] = [];
  const ctx: Contexts = {
    inputs: {},
    steps: {},
    github: { workspace },
    runner: { temp: runnerTemp },
    env: jobEnv,
    failed: false,
  };

  /** Runs one `run:` step with fresh GitHub files, and applies what it wrote to them. */
  const runStep = async (step: Step, label: string, scope: Contexts, cwd: string): Promise<Record<string, string>> => {
    const stepDir = mkdtempSync(join(runnerTemp, 'step-'));
    const files = {
      GITHUB_OUTPUT: join(stepDir, 'output'),
      GITHUB_ENV: join(stepDir, 'env'),
      GITHUB_PATH: join(stepDir, 'path'),
      GITHUB_STEP_SUMMARY: join(stepDir, 'summary'),
    };
    for (const file of Object.values(files)) writeFileSync(file, '');
    const script = join(stepDir, 'script.sh');
    writeFileSync(script, substitute(step.run!, scope));
    const stepEnv = Object.fromEntries(
      Object.entries(step.env ?? {}).map(([name, value]) => [name, substitute(String(value), scope)]),
    );
    const env = {
      ...process.env,
      NODE_OPTIONS: '',
      ...jobEnv,
      ...stepEnv,
      ...files,
      PATH: [...addedPath, stubs, process.env['PATH'] ?? ''].join(':'),
      GITHUB_WORKSPACE: workspace,
      GITHUB_ACTIONS: 'true',
      RUNNER_TEMP: runnerTemp,
      RUNNER_TRACKING_ID: trackingId,
      CI: 'true',
    };
    const ran = await bash(script, { cwd: resolve(cwd, substitute(step['working-directory'] ?? '', scope)), env });
    for (const line of ran.stdout.split('\n')) {
      const command = /^::(error|warning|notice)(?: title=([^:]*))?::(.*)$/.exec(line);
      if (command)
        result.annotations.push({
          level: command[1] as Annotation['level'],
          title: command[2] === undefined ? null : decodeCommand(command[2]),
          message: decodeCommand(command[3]!),
        });
      const mask = /^::add-mask::(.*)$/.exec(line);
      if (mask) result.masked.push(mask[1]!);
    }
    result.steps.push({ step: label, status: ran.status, output: `${ran.stdout}${ran.stderr}` });
    if (ran.status !== 0) scope.failed = ctx.failed = true;
    for (const [name, value] of parseGithubFile(read(files.GITHUB_ENV))) jobEnv[name] = value;
    result.githubEnv += read(files.GITHUB_ENV);
    addedPath.unshift(
      ...read(files.GITHUB_PATH)
        .split('\n')
        .filter((l) => l !== '')
        .reverse(),
    );
    result.summary += read(files.GITHUB_STEP_SUMMARY);
    return Object.fromEntries(parseGithubFile(read(files.GITHUB_OUTPUT)));
  };

  /** Runs one of this repository's actions as a composite action: inputs, its steps, its outputs. */
  const runAction = async (step: Step, label: string): Promise<Record<string, string>> => {
    if (options.actions === undefined) throw new Error(`${label}: no action folder given for ${step.uses!}`);
    const actionPath = /\/readiness@/.test(step.uses!) ? join(options.actions, 'readiness') : options.actions;
    const action = parse(readFileSync(join(actionPath, 'action.yml'), 'utf8')) as ActionFile;
    const given = Object.fromEntries(
      Object.entries(step.with ?? {}).map(([name, value]) => [name, substitute(String(value), ctx)]),
    );
    for (const name of Object.keys(given))
      if (!(name in (action.inputs ?? {}))) throw new Error(`${label}: the action has no input ${name}`);
    const inputs = Object.fromEntries(
      Object.entries(action.inputs ?? {}).map(([name, input]) => [name, given[name] ?? input.default ?? '']),
    );
    // `<owner>/water-sandbox[/readiness]@<ref>`: the repository and ref the runner fetched the action from.
    const [, repository = '', ref = ''] = /^([^/@]+\/[^/@]+)(?:\/[^@]*)?@(.+)$/.exec(step.uses!) ?? [];
    const scope: Contexts = {
      inputs,
      steps: {},
      github: { ...ctx.github, action_path: actionPath, action_repository: repository, action_ref: ref },
      runner: ctx.runner,
      env: jobEnv,
      failed: false,
    };
    for (const inner of action.runs.steps) {
      const innerLabel = `${label}/${inner.name ?? inner.run ?? ''}`;
      if (!runs(inner, scope)) {
        result.skipped.push(innerLabel);
        continue;
      }
      const outputs = await runStep(inner, innerLabel, scope, actionPath);
      if (inner.id !== undefined) scope.steps[inner.id] = { outputs };
    }
    return Object.fromEntries(
      Object.entries(action.outputs ?? {}).map(([name, output]) => [name, substitute(output.value, scope)]),
    );
  };

  try {
    for (const step of job.steps) {
      const label = step.name ?? step.uses ?? step.run ?? '';
      if (!runs(step, ctx) || (step.uses !== undefined && !OWN_ACTION.test(step.uses))) {
        result.skipped.push(label);
        continue;
      }
      const outputs =
        step.uses === undefined ? await runStep(step, label, ctx, workspace) : await runAction(step, label);
      if (step.id === undefined) continue;
      ctx.steps[step.id] = { outputs };
      result.outputs[step.id] = outputs;
    }
  } finally {
    await endJob(trackingId);
  }
  result.githubEnv = result.githubEnv.trimEnd();
  result.npmLog = read(npmLog);
  result.failed = ctx.failed;
  return result;
}

const decodeCommand = (text: string): string =>
  text.replace(/%0A/g, '\n').replace(/%0D/g, '\r').replace(/%3A/g, ':').replace(/%2C/g, ',').replace(/%25/g, '%');

/** The processes whose environment carries the job's RUNNER_TRACKING_ID (Linux's /proc). */
export function trackedProcesses(trackingId: string): number[] {
  const found: number[] = [];
  for (const entry of existsSync('/proc') ? readdirSync('/proc') : []) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0').includes(`RUNNER_TRACKING_ID=${trackingId}`))
        found.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/** What the runner does after a job's last step ("Cleaning up orphan processes"): kills what the job's steps left running. */
async function endJob(trackingId: string): Promise<void> {
  const killed = new Set<number>();
  // Again while the scan finds any: a step's process may have started a child as it was killed.
  for (let scan = trackedProcesses(trackingId); scan.length > 0; scan = trackedProcesses(trackingId)) {
    for (const pid of scan) {
      killed.add(pid);
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  // Until every one killed is gone by its state: a dying process loses its environment (and so
  // leaves the scan) before the kernel has marked it a zombie.
  while ([...killed].some(isRunning)) await new Promise((r) => setTimeout(r, 20));
}

/** Whether a process runs: neither gone nor a zombie (an init that does not reap leaves those). Linux's /proc; elsewhere, false. */
export function isRunning(pid: number): boolean {
  return !/^\d+ \(.*\) Z /s.test(read(`/proc/${pid}/stat`) || '0 (gone) Z ');
}

/**
 * A loopback port for a sandbox an action starts, free now (taken, then let go). It is drawn
 * below the ephemeral range, from which every server of the tests listening on port 0 takes
 * its port: one of those cannot take this one between now and the action's start.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const server = createServer();
    const taken = await new Promise<boolean>((done) => {
      server.once('error', () => done(false));
      server.listen(port, '127.0.0.1', () => done(true));
    });
    if (!taken) continue;
    await new Promise<void>((done) => server.close(() => done()));
    return port;
  }
}
