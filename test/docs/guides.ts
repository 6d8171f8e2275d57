import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

import type { Store } from '../../src/store/store.js';
import { startTestSandbox } from '../helpers/start-sandbox.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { shellBlocks } from './commands.js';
import { cliOnPath, paste } from './paste.js';

/** The README and every guide, in the order a reader finds them. */
export const DOC_FILES = [
  'README.md',
  ...readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => join('docs', f)),
];

/** The files with something to run. */
export const RUNNABLE_DOC_FILES = DOC_FILES.filter((file) => shellBlocks(file).some((b) => !b.skip));

// The docs are curl commands: a machine without curl cannot paste them either.
export const hasCurl = ((): boolean => {
  try {
    execFileSync('curl', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/**
 * What a guide must leave as it found it, per account: the clock at real time, no run still
 * running, and the same subscriptions, active alerts, faults and home/away modes. An account a
 * guide makes is held to the first two.
 */
async function footprints(store: Store): Promise<Map<string, { clock: unknown; running: string[]; rest: unknown }>> {
  const all = new Map<string, { clock: unknown; running: string[]; rest: unknown }>();
  let after: string | undefined;
  for (;;) {
    const page = await store.accounts.list({ limit: 500, ...(after === undefined ? {} : { after }) });
    for (const { accountId } of page.accounts) {
      const doc = await store.accounts.get(accountId);
      if (!doc) continue;
      all.set(accountId, {
        clock: doc.clock,
        running: doc.runs.filter((r) => r.state === 'running').map((r) => `${r.scenario} (${r.runId})`),
        rest: {
          subscriptions: doc.subscriptions.map((s) => `${s.subscriptionId} ${s.status}`),
          activeAlerts: doc.alerts.filter((a) => a.active).map((a) => `${a.type} (${a.alertId})`),
          faults: doc.faults,
          rateLimit: doc.rateLimit,
          homeAway: doc.locations.map((l) => `${l.name}: ${l.homeAway}`),
        },
      });
    }
    if (page.next === null) return all;
    after = page.next;
  }
}

/**
 * Pastes each file of `files`, in that order, into a shell of its own against one sandbox (a
 * reader who reads the guides in that order), and resolves with every problem: a block that
 * fails, a promise not kept, or an account left otherwise than the file found it.
 */
export async function pasteInOrder(files: readonly string[]): Promise<string[]> {
  const sandbox = await startTestSandbox();
  const receiver = await WebhookReceiver.start();
  const bin = cliOnPath();
  const problems: string[] = [];
  try {
    for (const file of files) {
      const before = await footprints(sandbox.deps.store);
      // The CLI's own defaults name the sandbox: SANDBOX_URL, as the README says.
      const env = {
        API: sandbox.url,
        RECEIVER: receiver.url(),
        SANDBOX_URL: sandbox.url,
        PATH: `${bin}:${process.env['PATH'] ?? ''}`,
        NODE_OPTIONS: '',
      };
      const blocks = shellBlocks(file).filter((b) => !b.skip);
      const pasted = await paste(blocks, { env, receiver, settle: () => sandbox.deps.dispatcher.drain() });
      problems.push(...pasted);
      if (pasted.length > 0) break;
      const after = await footprints(sandbox.deps.store);
      for (const [accountId, now] of after) {
        const was = before.get(accountId);
        const expected = { clock: { offsetMs: 0, frozenAtMs: null }, running: [], rest: was?.rest ?? now.rest };
        if (JSON.stringify({ clock: now.clock, running: now.running, rest: now.rest }) !== JSON.stringify(expected)) {
          problems.push(
            `${file} leaves account ${accountId}${was ? '' : ' (made by it)'} otherwise than it found it:\n` +
              `  expected ${JSON.stringify(expected)}\n  found    ${JSON.stringify(now)}`,
          );
        }
      }
    }
    return problems;
  } finally {
    await receiver.close();
  }
}
