import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

import { ACTION_FILES, runScripts, WORKFLOW_FILES, type RunScript } from './workflow-files.js';

/**
 * `npm run lint:shell`: shellcheck (Debian's `shellcheck` package; not part of `npm test`, which
 * needs only Node and npm: .ci/run installs it and runs this) on every shell script of the
 * repository: the bash of each `run:` step of the workflows and the two actions (expressions
 * `${{ }}` stand as underscores, as actionlint hands them to shellcheck), and the scripts
 * themselves. Prints each finding as file:line:column and exits 1 when there is one.
 */
const SCRIPTS = ['.ci/run', 'test/docs/strict-curl.sh'];

const version = spawnSync('shellcheck', ['--version'], { encoding: 'utf8' });
if (version.error !== undefined || version.status !== 0) {
  process.stderr.write(
    'lint:shell: shellcheck is not installed (apt-get install shellcheck; .ci/run installs it when missing)\n',
  );
  process.exit(1);
}

interface Finding {
  line: number;
  column: number;
  level: string;
  code: number;
  message: string;
}

/** shellcheck on one script's text as bash: its findings, lines counted in that text. */
function check(text: string, shell: string): Finding[] {
  const result = spawnSync('shellcheck', ['--shell', shell, '--format', 'json1', '--external-sources', '-'], {
    input: text,
    encoding: 'utf8',
  });
  if (result.status !== 0 && result.status !== 1)
    throw new Error(`shellcheck failed (${String(result.status)}): ${result.stderr}`);
  return (JSON.parse(result.stdout) as { comments: Finding[] }).comments;
}

const scripts: (Omit<RunScript, 'step'> & { step: string | null })[] = [
  ...[...WORKFLOW_FILES, ...ACTION_FILES].flatMap((file) => runScripts(file)),
  ...SCRIPTS.map((file) => ({ file, line: 1, step: null, shell: 'bash', script: readFileSync(file, 'utf8') })),
];
let findings = 0;
let checked = 0;
for (const script of scripts) {
  if (!['bash', 'sh'].includes(script.shell)) continue;
  checked++;
  // A step's script is run as a file of its own; its first line is the script's, not a #!.
  for (const f of check(script.script, script.shell)) {
    findings++;
    const where = `${script.file}:${script.line + f.line - 1}:${f.column}`;
    process.stdout.write(
      `${where}: ${f.level} SC${f.code}: ${f.message}${script.step === null ? '' : ` (step: ${script.step})`}\n`,
    );
  }
}
process.stdout.write(
  `lint:shell: ${checked} scripts checked with ${version.stdout.match(/version: (\S+)/)?.[1] ?? 'shellcheck'}: ${findings === 0 ? 'no finding' : `${findings} findings`}\n`,
);
process.exitCode = findings === 0 ? 0 : 1;
