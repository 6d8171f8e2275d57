import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import { ManualClock } from '../../src/core/clock.js';
import type { AccountDoc } from '../../src/store/data.js';
import { indexEntriesOf, splitIndexEntry } from '../../src/store/derived.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { T0 } from './builders.js';
import { MAIN_ACCOUNTS, mainOf } from './crash/writes.js';

/**
 * A kill -9 during a burst of writes leaves a store that loads, with every acknowledged write.
 *
 * The writer is a real child process (SIGKILL has to hit a process that is writing files).
 * Node 20 cannot run TypeScript itself and tests have no dist build, so the child runs the
 * sources through small module hooks (crash/register-ts.mjs) that compile each .ts file with
 * @swc/core, the compiler jest already uses here. Rounds: the first child starts on an empty
 * folder, each next one on what the killed one left, so a killed store is also reopened and
 * written to again by the code under test before the final check.
 */

const here = (path: string): string => fileURLToPath(new URL(path, import.meta.url));
const ROUNDS = 3;
const ACKS_BEFORE_KILL = 300;

interface Round {
  acked: number[];
  stderr: string;
  signal: NodeJS.Signals | null;
}

/** Runs the writer on `dir` until it acknowledged `acksBeforeKill` writes, then kills it with SIGKILL. */
async function writeUntilKilled(dir: string, firstSeq: number, acksBeforeKill: number): Promise<Round> {
  const child = spawn(
    process.execPath,
    ['--import', here('./crash/register-ts.mjs'), here('./crash/writer.ts'), dir, String(firstSeq)],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const closed = once(child, 'close');
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const acked: number[] = [];
  // Every line the child wrote before it died is still read from the pipe.
  for await (const line of createInterface({ input: child.stdout })) {
    const match = /^ack (\d+)$/.exec(line);
    if (!match) continue;
    acked.push(Number(match[1]));
    if (acked.length === acksBeforeKill) child.kill('SIGKILL');
  }
  const [, signal] = (await closed) as [number | null, NodeJS.Signals | null];
  return { acked, stderr, signal };
}

describe('a store killed (SIGKILL) during a burst of writes', () => {
  let work: string;
  let dir: string;
  let store: EmbeddedStore;
  const acked: number[] = [];
  const rounds: Round[] = [];

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'water-crash-'));
    dir = join(work, 'data');
    for (let round = 0; round < ROUNDS; round++)
      rounds.push(await writeUntilKilled(dir, round * 1_000_000, ACKS_BEFORE_KILL));
    for (const round of rounds) acked.push(...round.acked);
    store = (
      await EmbeddedStore.open({
        dir,
        clock: new ManualClock(T0),
        deliveryLogLimit: 50,
        sessionTtlMs: 3_600_000,
        cacheSize: 3,
      })
    ).store;
  }, 60_000);

  afterAll(async () => {
    // Unset when beforeAll failed.
    await (store as EmbeddedStore | undefined)?.close();
    await rm(work, { recursive: true, force: true });
  });

  it('each writer was killed mid-burst, after its acknowledged writes, without an error of its own', () => {
    for (const round of rounds) {
      expect(round.stderr).toBe('');
      expect(round.signal).toBe('SIGKILL');
      expect(round.acked.length).toBeGreaterThanOrEqual(ACKS_BEFORE_KILL);
    }
  });

  it('every acknowledged write is there after the restart', async () => {
    const missing: string[] = [];
    const mains = new Map<string, AccountDoc>();
    for (const id of MAIN_ACCOUNTS) mains.set(id, (await store.accounts.get(id)) as AccountDoc);
    for (const n of acked) {
      switch (n % 3) {
        case 0: {
          const doc = mains.get(mainOf(n));
          if (!doc?.faults.some((f) => f.faultId === `f-${n}`)) missing.push(`fault f-${n}`);
          if ((await store.accounts.lookup('apiKey', `k-${n}`)) !== mainOf(n)) missing.push(`key k-${n}`);
          if (!(await store.deliveries.get(mainOf(n), `d-${n}`))) missing.push(`delivery d-${n}`);
          break;
        }
        case 1:
          if (!(await store.accounts.get(`acc-${n}`))) missing.push(`account acc-${n}`);
          if ((await store.accounts.lookup('apiKey', `ak-${n}`)) !== `acc-${n}`) missing.push(`key ak-${n}`);
          break;
        default:
          if ((await store.settings.get(`s-${n}`)) !== String(n)) missing.push(`setting s-${n}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('every account in the index loads, and the count agrees', async () => {
    const failed: string[] = [];
    let listed = 0;
    let after: string | undefined;
    for (;;) {
      const page = await store.accounts.list(after === undefined ? { limit: 500 } : { after, limit: 500 });
      for (const { accountId } of page.accounts) {
        listed++;
        if (!(await store.accounts.get(accountId))) failed.push(accountId);
      }
      if (page.next === null) break;
      after = page.next;
    }
    expect(failed).toEqual([]);
    expect(listed).toBe(await store.accounts.count());
    expect(listed).toBeGreaterThanOrEqual(MAIN_ACCOUNTS.length + acked.filter((n) => n % 3 === 1).length);
  });

  it('every key in the index files resolves to nothing or to an account that loads', async () => {
    // Keys left by a create or delete the kill interrupted resolve to nothing. (A key added by an
    // update that was never acknowledged may still resolve to its account without being in its
    // document: callers find no record for it, as for an unknown key.)
    const dangling: string[] = [];
    const summaries: { entries: string[] }[] = [];
    for (const name of (await readdir(join(dir, 'index'))).filter((f) => !f.startsWith('.'))) {
      const text = await readFile(join(dir, 'index', name), 'utf8');
      // A shard's file, and its log: a summary on each line.
      if (name.endsWith('.json'))
        summaries.push(
          ...Object.values((JSON.parse(text) as { accounts: Record<string, { entries: string[] }> }).accounts),
        );
      else
        for (const line of text.split('\n').filter((l) => l !== ''))
          summaries.push((JSON.parse(line) as [string, { entries: string[] } | null])[1] ?? { entries: [] });
    }
    {
      for (const entry of summaries.flatMap((summary) => summary.entries)) {
        const { kind, key } = splitIndexEntry(entry);
        const owner = await store.accounts.lookup(kind, key);
        if (owner !== null && !(await store.accounts.get(owner))) dangling.push(`${entry} → ${owner}`);
      }
    }
    expect(dangling).toEqual([]);
  });

  it('every key of every account document resolves to it', async () => {
    const unresolved: string[] = [];
    const ids = [...MAIN_ACCOUNTS, ...acked.filter((n) => n % 3 === 1).map((n) => `acc-${n}`)];
    for (const id of ids) {
      const doc = await store.accounts.get(id);
      for (const entry of doc ? indexEntriesOf(doc) : []) {
        const { kind, key } = splitIndexEntry(entry);
        if ((await store.accounts.lookup(kind, key)) !== id) unresolved.push(`${entry} of ${id}`);
      }
    }
    expect(unresolved).toEqual([]);
  });

  it('no file of the store is damaged', async () => {
    const damaged: string[] = [];
    const files = [
      'store.json',
      ...(await readdir(join(dir, 'index'))).map((f) => join('index', f)),
      ...(await readdir(join(dir, 'accounts'))).map((f) => join('accounts', f)),
    ];
    // Temporary files (".<name>.tmp") are writes that never finished; they are never read.
    for (const file of files.filter((f) => !f.split('/').pop()!.startsWith('.'))) {
      try {
        const text = await readFile(join(dir, file), 'utf8');
        // An index shard's log: a JSON line each change, each written whole.
        if (file.endsWith('.log')) for (const line of text.split('\n').filter((l) => l !== '')) JSON.parse(line);
        else JSON.parse(text);
      } catch {
        damaged.push(file);
      }
    }
    expect(damaged).toEqual([]);
    expect(files.length).toBeGreaterThan(MAIN_ACCOUNTS.length);
  });
});
