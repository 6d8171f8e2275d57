import type { Readable, Writable } from 'node:stream';

/**
 * What the CLI gets from the process (main.ts is the only module that touches `process`), so
 * every command can be run in a test with its own environment and output.
 */
export interface CliContext {
  /** The environment: SANDBOX_URL, WATER_API_KEY, ADMIN_TOKEN and every variable `serve` reads. */
  readonly env: Readonly<Record<string, string | undefined>>;
  stdout(text: string): void;
  stderr(text: string): void;
  /**
   * Resolves with the signal's name at the first SIGINT or SIGTERM. Only commands that clean
   * up (serve, listen, scenario run) call it: the others keep Node's default of ending at once on Ctrl-C.
   */
  untilStopSignal(): Promise<string>;
  /**
   * Resolves, with a sentence saying so, once the process that started this one has ended (see
   * parent-watch.ts); never, where nothing started it but init. `listen` calls it, so it lets go
   * of its subscriptions when what ran it (a shell, npx, a test runner) is gone.
   */
  untilParentGone(): Promise<string>;
  /** stdin and stdout as streams, for a command that speaks a protocol over them (`mcp`). */
  readonly stdio: { input: Readable; output: Writable };
  /** The Node options of this process (process.execArgv). */
  readonly execArgv: readonly string[];
  /**
   * Replaces this process with `node <nodeFlags> <its options> <its script and arguments>`, as
   * process.execve does (same process id, so signals and exit codes are unchanged). Returns
   * false, having done nothing, where that is not available (Node before 22.15, Windows).
   */
  reexec(nodeFlags: readonly string[]): boolean;
}

/** A failure to report as one message (no stack) with the exit code: 2 for usage, 1 for the rest. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
