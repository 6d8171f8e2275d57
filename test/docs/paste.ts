import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { describeReceivedRequest } from '../../src/tools/received-request.js';
import type { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { findShown, type ShellBlock } from './commands.js';

/**
 * A folder with `water-sandbox` in it, as `npm link` would put it on PATH: the CLI's sources run
 * by Node through @swc/core, as the CLI tests run them (a fresh clone has no dist/).
 */
export function cliOnPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'docs-bin-'));
  const bin = join(dir, 'water-sandbox');
  writeFileSync(
    bin,
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} --import ${JSON.stringify(resolve('test/store/crash/register-ts.mjs'))} ${JSON.stringify(resolve('src/main.ts'))} "$@"\n`,
  );
  chmodSync(bin, 0o755);
  return dir;
}

/** What the receiver got, as `npm run receiver` prints it. */
export const receiverText = (receiver: WebhookReceiver, from: number): string =>
  receiver.received
    .slice(from)
    .map((r) => describeReceivedRequest(r.method, r.path, r.rawBody))
    .join('');

export interface PasteOptions {
  /** The variables the docs read ($API, $RECEIVER, SANDBOX_URL, ...). */
  env: Record<string, string>;
  receiver: WebhookReceiver;
  /** Resolves once the sandbox has sent what was due (each attempt answered), so what a block set off is in the receiver. */
  settle: () => Promise<void>;
}

const MARK = '@@@ block done';

/**
 * Pastes the blocks into one bash, one at a time, as a reader pastes them into one terminal:
 * after each, waits for the sandbox to settle and checks what the block promised against what
 * it printed and what the receiver got meanwhile. Resolves with the problems, [] when none.
 * The shell runs with `set -eo pipefail` and curl failing on an HTTP error (test/docs/strict-curl.sh),
 * unless the block is marked `fails`.
 */
export async function paste(blocks: readonly ShellBlock[], options: PasteOptions): Promise<string[]> {
  const shell: ChildProcessWithoutNullStreams = spawn('bash', ['-s'], { env: { ...process.env, ...options.env } });
  let stdout = '';
  let stderr = '';
  const waiters: (() => void)[] = [];
  const wake = (): void => {
    for (const waiter of waiters.splice(0)) waiter();
  };
  shell.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    wake();
  });
  shell.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let exited: number | null | undefined;
  shell.on('close', (code) => {
    exited = code;
    wake();
  });
  shell.stdin.on('error', () => undefined);
  const until = async (done: () => boolean): Promise<void> => {
    while (!done() && exited === undefined) await new Promise<void>((resolve) => waiters.push(resolve));
  };

  shell.stdin.write(`set -eo pipefail\nsource ${JSON.stringify(resolve('test/docs/strict-curl.sh'))}\n`);
  const problems: string[] = [];
  try {
    for (const [index, block] of blocks.entries()) {
      const where = `${block.file}:${block.line}`;
      const printedBefore = stdout.length;
      const receivedBefore = options.receiver.received.length;
      const mark = `${MARK} ${index}`;
      // The block reads no input of the shell's: its stdin is the rest of this script.
      shell.stdin.write(
        `${block.fails ? 'EXPECT_FAILURE=1\n' : ''}{\n${block.code}\n} </dev/null\nunset EXPECT_FAILURE\necho "${mark}"\n`,
      );
      await until(() => stdout.includes(mark, printedBefore));
      if (!stdout.includes(mark, printedBefore)) {
        problems.push(
          `${where}: the block failed (bash exited ${String(exited)}).\nIt printed:\n${stdout.slice(printedBefore).slice(-1500)}\nErrors:\n${stderr.slice(-1500)}`,
        );
        return problems;
      }
      await options.settle();
      const printed = stdout.slice(printedBefore, stdout.indexOf(mark, printedBefore));
      const received = receiverText(options.receiver, receivedBefore);
      let from = 0;
      for (const promise of block.promises.filter((p) => p.kind === 'output')) {
        const end = findShown(printed, promise.text, { from });
        if (end < 0)
          problems.push(
            `${block.file}:${promise.line}: promises the block prints\n${promise.text}\nbut from there it printed\n${printed.slice(from).slice(0, 3000)}`,
          );
        else from = end;
      }
      const onReceiver = block.promises.filter((p) => p.kind === 'receiver');
      if (onReceiver.length > 0 && findShown(received, onReceiver.map((p) => p.text).join('\n'), { whole: true }) < 0) {
        problems.push(
          `${block.file}:${onReceiver[0]!.line}: promises the receiver gets\n${onReceiver.map((p) => p.text).join('\n')}\nbut it got\n${received.slice(0, 3000) || '(nothing)'}`,
        );
      }
      if (problems.length > 0) return problems;
    }
    return problems;
  } finally {
    shell.stdin.end();
    if (exited === undefined) await until(() => false);
  }
}
