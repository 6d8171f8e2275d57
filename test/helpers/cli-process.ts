import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const here = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

/** The TypeScript sources run by a plain Node through @swc/core (there is no dist/ in a fresh clone); see test/store/crash/ts-hooks.mjs. */
const REGISTER_TS = here('../store/crash/register-ts.mjs');
const MAIN = here('../../src/main.ts');

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * `water-sandbox <args>` as a real child process, with only the environment given (plus PATH),
 * so nothing of the test's own environment (SANDBOX_URL, WATER_API_KEY, jest's NODE_OPTIONS)
 * leaks in. Output is collected; `waitFor` resolves when a line matches, with a deadline.
 */
export class CliProcess {
  stdout = '';
  stderr = '';
  readonly exited: Promise<Exit>;
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #waiters = new Set<() => void>();
  #ended = false;

  constructor(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}) {
    this.#child = spawn(process.execPath, ['--import', REGISTER_TS, MAIN, ...args], {
      env: { PATH: process.env['PATH'] ?? '', ...options.env },
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    });
    this.#child.stdout.setEncoding('utf8').on('data', (chunk: string) => this.#heard('stdout', chunk));
    this.#child.stderr.setEncoding('utf8').on('data', (chunk: string) => this.#heard('stderr', chunk));
    this.exited = once(this.#child, 'close').then(([code, signal]) => {
      this.#ended = true;
      this.#wake();
      return { code: code as number | null, signal: signal as NodeJS.Signals | null };
    });
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Resolves with the first match of `pattern` in the output (stdout or stderr, or `stream`), once it appears; rejects at the deadline or when the process ends without it. */
  async waitFor(
    pattern: RegExp,
    options: { stream?: 'stdout' | 'stderr'; timeoutMs?: number } = {},
  ): Promise<RegExpMatchArray> {
    const timeoutMs = options.timeoutMs ?? 15_000;
    const text = (): string =>
      options.stream === 'stdout'
        ? this.stdout
        : options.stream === 'stderr'
          ? this.stderr
          : `${this.stdout}\n${this.stderr}`;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `no output matching ${String(pattern)} within ${timeoutMs} ms\nstdout:\n${this.stdout}\nstderr:\n${this.stderr}`,
            ),
          ),
        timeoutMs,
      );
    });
    try {
      for (;;) {
        const match = text().match(pattern);
        if (match) return match;
        if (this.#ended)
          throw new Error(
            `the process ended without output matching ${String(pattern)}\nstdout:\n${this.stdout}\nstderr:\n${this.stderr}`,
          );
        await Promise.race([new Promise<void>((resolve) => this.#waiters.add(resolve)), deadline]);
      }
    } finally {
      clearTimeout(timer);
    }
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    this.#child.kill(signal);
  }

  #heard(stream: 'stdout' | 'stderr', chunk: string): void {
    this[stream] += chunk;
    this.#wake();
  }

  #wake(): void {
    for (const waiter of [...this.#waiters]) waiter();
    this.#waiters.clear();
  }
}

/** Runs the CLI to its end: exit code and output. */
export async function runCliProcess(
  args: string[],
  options: { env?: Record<string, string>; cwd?: string } = {},
): Promise<Exit & { stdout: string; stderr: string }> {
  const cli = new CliProcess(args, options);
  const exit = await cli.exited;
  return { ...exit, stdout: cli.stdout, stderr: cli.stderr };
}
