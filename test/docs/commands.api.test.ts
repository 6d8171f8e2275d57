import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { startTestSandbox, stopAllSandboxes } from '../helpers/start-sandbox.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { pasteProblems, shellBlocks, type ShellBlock } from './commands.js';

/**
 * The docs paste: every ```sh block of the README and the guides runs as written, in order,
 * in one shell per file, against a sandbox started fresh for that file and a real receiver.
 * The docs name the sandbox `$API` and the receiver `$RECEIVER` with defaults
 * (`API=${API:-http://localhost:8080}`), so a reader pastes them unchanged and the test points
 * them at its own ports. A block fenced ```sh skip is not run (it starts a server, or needs
 * Docker); ```sh fails is run and must answer an HTTP error (it shows one on purpose).
 * curl answering 4xx or 5xx anywhere else fails the test, as does any command that fails.
 */

const FILES = ['README.md', ...readdirSync('docs').filter((f) => f.endsWith('.md')).sort().map((f) => join('docs', f))];

// The docs are curl commands: a machine without curl cannot paste them either.
const hasCurl = ((): boolean => {
  try {
    execFileSync('curl', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/**
 * A folder with `water-sandbox` in it, as `npm link` would put it on PATH: the CLI's sources run
 * by Node through @swc/core, as the CLI tests run them (a fresh clone has no dist/).
 */
function cliOnPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'docs-bin-'));
  const bin = join(dir, 'water-sandbox');
  writeFileSync(bin, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} --import ${JSON.stringify(resolve('test/store/crash/register-ts.mjs'))} ${JSON.stringify(resolve('src/main.ts'))} "$@"\n`);
  chmodSync(bin, 0o755);
  return dir;
}

function script(blocks: readonly ShellBlock[]): string {
  const parts = ['set -eo pipefail', `source ${JSON.stringify(resolve('test/docs/strict-curl.sh'))}`];
  for (const block of blocks) {
    parts.push(`echo "### ${block.file}:${block.line}" >&2`);
    if (block.fails) parts.push('EXPECT_FAILURE=1');
    parts.push(block.code, 'unset EXPECT_FAILURE');
  }
  return parts.join('\n');
}

function run(source: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', source], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('every runnable block of the docs', () => {
  it.each(FILES.flatMap((file) => shellBlocks(file).filter((b) => !b.skip).map((b) => [`${b.file}:${b.line}`, b] as const)))('%s pastes as written', (_where, block) => {
    expect(pasteProblems(block)).toEqual([]);
  });
});

(hasCurl ? describe : describe.skip)('the docs, pasted in order against a fresh sandbox', () => {
  afterEach(stopAllSandboxes);

  it.each(FILES.filter((file) => shellBlocks(file).some((b) => !b.skip)))(
    '%s runs from top to bottom',
    async (file) => {
      const receiver = await WebhookReceiver.start();
      try {
        const sandbox = await startTestSandbox();
        const blocks = shellBlocks(file).filter((b) => !b.skip);
        // The CLI's own defaults name the sandbox: SANDBOX_URL, as the README says.
        const env = { API: sandbox.url, RECEIVER: receiver.url(), SANDBOX_URL: sandbox.url, PATH: `${cliOnPath()}:${process.env['PATH'] ?? ''}`, NODE_OPTIONS: '' };
        const { code, stdout, stderr } = await run(script(blocks), env);
        const failedAt = [...stderr.matchAll(/^### (.+)$/gm)].at(-1)?.[1];
        // On failure, name the block and show what it printed.
        expect({ code, failedAt: code === 0 ? null : failedAt, stderr: code === 0 ? '' : stderr.slice(-2000), stdout: code === 0 ? '' : stdout.slice(-2000) }).toEqual({
          code: 0,
          failedAt: null,
          stderr: '',
          stdout: '',
        });
      } finally {
        await receiver.close();
      }
    },
    120_000,
  );
});
