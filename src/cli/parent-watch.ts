import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * Notices that the process that started this one has ended, so a command that holds something
 * of the sandbox's (`listen` and its subscriptions) can let go of it, rather than outlive its
 * starter forever. A parent that ends without a signal to pass on (killed with SIGKILL, or npm,
 * which does not pass SIGTERM on to what `npx` runs) leaves this process to init: its parent
 * pid changes. `npx` and `npm run` start a command through a shell (`npm exec` -> `sh -c` ->
 * node), and a killed npm leaves that shell waiting, alive; so when npm started this process
 * (it sets npm_command), the parent's parent is watched too.
 */

/** How a process is read: this process's parent, another's parent, and whether a process is alive. */
export interface ProcessProbe {
  parentPid(): number;
  parentOf(pid: number): number | null;
  isAlive(pid: number): boolean;
}

export const PARENT_POLL_MS = 1000;

/**
 * The parent of a process, from /proc (Linux) or `ps` (macOS and the BSDs); null where neither
 * answers (Windows) or when the process is gone.
 */
export function parentOf(pid: number, platform: string): number | null {
  try {
    if (platform === 'linux') {
      // /proc/<pid>/stat: "pid (command) state ppid ...", and the command may hold spaces and parentheses.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      return Number.isInteger(ppid) ? ppid : null;
    }
    if (platform === 'win32') return null;
    const ppid = Number(
      execFileSync('ps', ['-o', 'ppid=', '-p', String(pid)], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim(),
    );
    return Number.isInteger(ppid) && ppid > 0 ? ppid : null;
  } catch {
    return null;
  }
}

/** The processes whose end ends this one: the parent, and npm's behind its shell. Init (pid 1) is never one. */
export function startersOf(probe: ProcessProbe, startedByNpm: boolean): number[] {
  const parent = probe.parentPid();
  const starters = parent > 1 ? [parent] : [];
  if (startedByNpm && parent > 1) {
    const grandparent = probe.parentOf(parent);
    if (grandparent !== null && grandparent > 1) starters.push(grandparent);
  }
  return starters;
}

/**
 * Resolves, with a sentence saying which, once a starter has ended: polled every `pollMs`, on
 * a timer that does not keep the process alive. A process started by init has nothing to watch.
 */
export function untilStarterGone(probe: ProcessProbe, startedByNpm: boolean, pollMs = PARENT_POLL_MS): Promise<string> {
  const starters = startersOf(probe, startedByNpm);
  const [parent] = starters;
  return new Promise((resolve) => {
    if (parent === undefined) return;
    const timer = setInterval(() => {
      const gone = probe.parentPid() !== parent ? parent : starters.find((pid) => !probe.isAlive(pid));
      if (gone === undefined) return;
      clearInterval(timer);
      resolve(`the process that started it (pid ${gone}${gone === parent ? '' : ', npm'}) has ended`);
    }, pollMs);
    timer.unref();
  });
}
