import { readFileSync } from 'node:fs';

import { isMap, isScalar, isSeq, LineCounter, parseDocument, stringify, type YAMLMap } from 'yaml';

/**
 * The GitHub Actions files of this repository, for their lint: the workflows (its own CI and
 * release, and the example a partner copies) and its two composite actions. `npm test` lints
 * them with actionlint (test/contracts/workflows.test.ts); `npm run lint:shell` runs shellcheck
 * on the shell of their `run:` steps (lint-shell.ts).
 */
export const WORKFLOW_FILES = [
  '.github/workflows/ci.yml',
  '.github/workflows/release.yml',
  'examples/github-actions.yml',
] as const;
export const ACTION_FILES = ['action.yml', 'readiness/action.yml'] as const;

interface ActionInput {
  description?: unknown;
  default?: unknown;
  required?: unknown;
}

/** A composite action's metadata, as far as it is read here. */
interface Action {
  inputs?: Record<string, ActionInput>;
  outputs?: Record<string, { description?: unknown; value?: unknown }>;
  runs?: { using?: unknown; steps?: Record<string, unknown>[] };
}

const TOP_LEVEL_KEYS = ['name', 'author', 'description', 'inputs', 'outputs', 'runs', 'branding'];
const STEP_KEYS = ['name', 'id', 'if', 'run', 'shell', 'uses', 'with', 'env', 'working-directory', 'continue-on-error'];

/**
 * What GitHub's metadata syntax for a composite action asks that actionlint does not check
 * (it reads workflows only): a name and description, inputs and outputs described, each output
 * with its value, each step either `run` with its `shell` or `uses`, known keys, unique ids.
 */
export function actionProblems(text: string): string[] {
  const action = parseDocument(text).toJS() as Record<string, unknown> & Action;
  const problems: string[] = [];
  for (const key of Object.keys(action))
    if (!TOP_LEVEL_KEYS.includes(key)) problems.push(`unknown key ${key} (the keys are ${TOP_LEVEL_KEYS.join(', ')})`);
  for (const key of ['name', 'description'])
    if (typeof action[key] !== 'string' || action[key] === '') problems.push(`${key} is required`);
  for (const [name, input] of Object.entries(action.inputs ?? {})) {
    if (typeof input.description !== 'string') problems.push(`input ${name} has no description`);
    if (input.default !== undefined && typeof input.default !== 'string')
      problems.push(`input ${name}: its default is not a string`);
  }
  for (const [name, output] of Object.entries(action.outputs ?? {})) {
    if (typeof output.description !== 'string') problems.push(`output ${name} has no description`);
    if (typeof output.value !== 'string')
      problems.push(`output ${name} has no value (a composite action's output needs one)`);
  }
  if (action.runs?.using !== 'composite') problems.push('runs.using is not composite');
  const ids = new Set<string>();
  (action.runs?.steps ?? []).forEach((step, i) => {
    const where = `step ${i + 1}${typeof step['name'] === 'string' ? ` (${step['name']})` : ''}`;
    for (const key of Object.keys(step)) if (!STEP_KEYS.includes(key)) problems.push(`${where}: unknown key ${key}`);
    if ('run' in step === 'uses' in step) problems.push(`${where}: has to have either run or uses`);
    if ('run' in step && typeof step['shell'] !== 'string') problems.push(`${where}: a run step needs its shell`);
    if (typeof step['id'] === 'string') {
      if (ids.has(step['id'])) problems.push(`${where}: the id ${step['id']} is taken`);
      ids.add(step['id']);
    }
  });
  return problems;
}

/**
 * A composite action as a workflow that actionlint checks as it checks any: its inputs as a
 * reusable workflow's (so `inputs.<name>` must be one of them), its steps as one job's (so every
 * expression, `steps.<id>` and `if:` is typed), and its outputs' values in a last step's
 * environment (so each names a step and output that exist). Line numbers are this text's.
 */
export function actionAsWorkflow(text: string): string {
  const action = parseDocument(text).toJS() as Action;
  const inputs = Object.fromEntries(
    Object.keys(action.inputs ?? {}).map((name) => [name, { type: 'string', required: false }]),
  );
  const outputs = Object.entries(action.outputs ?? {}).map(([name, output]) => [
    `OUTPUT_${name.toUpperCase().replace(/-/g, '_')}`,
    output.value,
  ]);
  const steps = [...(action.runs?.steps ?? [])];
  if (outputs.length > 0) steps.push({ name: "the action's outputs", run: 'true', env: Object.fromEntries(outputs) });
  return stringify({
    name: 'composite action',
    on: { workflow_call: { inputs } },
    jobs: { action: { 'runs-on': 'ubuntu-latest', steps } },
  });
}

/** The shell of a `run:` step, where it starts in its file, and the shell it runs in. */
export interface RunScript {
  file: string;
  /** The line of the script's first line in the file (1-based). */
  line: number;
  step: string;
  shell: string;
  /** The script with each `${{ }}` expression replaced by underscores of its length (as actionlint does for shellcheck). */
  script: string;
}

/**
 * Every `run:` step of a workflow's jobs or of a composite action, with the shell it runs in: its
 * own `shell`, else the job's or workflow's `defaults.run.shell`, else bash (a runner on Linux).
 */
export function runScripts(file: string, text: string = readFileSync(file, 'utf8')): RunScript[] {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter });
  const found: RunScript[] = [];
  const shellOf = (map: unknown): string | undefined => {
    const value = isMap(map) ? map.getIn(['defaults', 'run', 'shell']) : undefined;
    return typeof value === 'string' ? value : undefined;
  };
  const fromSteps = (steps: unknown, defaultShell: string | undefined): void => {
    if (!isSeq(steps)) return;
    steps.items.forEach((item, i) => {
      if (!isMap(item)) return;
      const run = item.get('run', true);
      if (!isScalar(run) || typeof run.value !== 'string') return;
      const label = item.get('name') ?? item.get('id');
      const shell = item.get('shell') ?? defaultShell;
      // A block scalar (run: |) starts on the line after its indicator.
      const [start] = run.range ?? [0];
      const { line } = lineCounter.linePos(start);
      const block = run.type === 'BLOCK_LITERAL' || run.type === 'BLOCK_FOLDED';
      found.push({
        file,
        line: block ? line + 1 : line,
        step: typeof label === 'string' ? label : `step ${i + 1}`,
        shell: typeof shell === 'string' ? shell : 'bash',
        script: run.value.replace(/\$\{\{.*?\}\}/g, (expression) => '_'.repeat(expression.length)),
      });
    });
  };
  const root = doc.contents;
  if (!isMap(root)) return found;
  const runs = root.get('runs');
  if (isMap(runs)) fromSteps(runs.get('steps', true), undefined);
  const jobs = root.get('jobs');
  if (isMap(jobs))
    for (const job of (jobs as YAMLMap).items)
      if (isMap(job.value)) fromSteps(job.value.get('steps', true), shellOf(job.value) ?? shellOf(root));
  return found;
}
