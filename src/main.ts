#!/usr/bin/env node
import module from 'node:module';

// Node 22.1+ keeps the compiled code of every module loaded after this in the temp folder, so a
// restart skips compiling them (about a third of start-up); hence the rest is imported below, not statically.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
const { runCli } = await import('./cli/program.js');
const { parentOf, untilStarterGone } = await import('./cli/parent-watch.js');

/**
 * The process entry, and the package's `bin` (water-sandbox): the only module that touches
 * process.argv, process.env, signals and exit codes. `node dist/main.js` with no command is
 * `serve`, so `npm start` and the Dockerfile's CMD run the sandbox.
 */
let stopSignal: Promise<string> | null = null;
let parentGone: Promise<string> | null = null;

type Execve = (file: string, args: string[], env: NodeJS.ProcessEnv) => never;

// `water-sandbox scenario list | head -1`: a reader that stops early is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
}

runCli(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  untilStopSignal: () =>
    (stopSignal ??= new Promise((resolve) => {
      // A second signal while stopping is ignored: stopping is bounded, and Ctrl-C in a terminal
      // may reach the process twice (from the terminal and from a wrapper such as npm).
      const stop = (signal: string): void => resolve(signal);
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    })),
  untilParentGone: () =>
    (parentGone ??= untilStarterGone(
      {
        parentPid: () => process.ppid,
        parentOf: (pid) => parentOf(pid, process.platform),
        isAlive: (pid) => {
          try {
            process.kill(pid, 0);
            return true;
          } catch (error) {
            // EPERM: alive, but another user's.
            return (error as NodeJS.ErrnoException).code === 'EPERM';
          }
        },
      },
      process.env['npm_command'] !== undefined,
    )),
  stdio: { input: process.stdin, output: process.stdout },
  execArgv: process.execArgv,
  reexec: (nodeFlags) => {
    // process.execve (Node 22.15+, 23.11+; not on Windows) replaces this process: same pid, no parent left waiting.
    const execve = (process as { execve?: Execve }).execve;
    if (typeof execve !== 'function' || process.platform === 'win32') return false;
    return execve.call(
      process,
      process.execPath,
      [process.execPath, ...nodeFlags, ...process.execArgv, ...process.argv.slice(1)],
      process.env,
    );
  },
})
  .then((code) => {
    process.exitCode = code;
  })
  .catch((error: unknown) => {
    process.stderr.write(`water-sandbox: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  });
