/**
 * The child process of test/store/crash.test.ts, run as
 *
 *   node --import ./register-ts.mjs writer.ts <dataDir> <firstSeq>
 *
 * Opens the embedded store on <dataDir> and writes without pause from a few concurrent workers
 * until it is killed. Each write has a sequence number n (from <firstSeq> on) and is printed as
 * "ack <n>" only after its promise resolved, so the parent knows which writes were
 * acknowledged when it sent SIGKILL. What a write does is in writes.ts.
 */
import { systemClock } from '../../../src/core/clock.js';
import { EmbeddedStore } from '../../../src/store/embedded/embedded-store.js';
import { givenAccount } from '../builders.js';
import { MAIN_ACCOUNTS, writeOf } from './writes.js';

const WORKERS = 6;

async function main(): Promise<void> {
  const [dir, first] = process.argv.slice(2);
  if (!dir || !first) throw new Error('usage: writer.ts <dataDir> <firstSeq>');
  const { store } = await EmbeddedStore.open({
    dir,
    clock: systemClock,
    deliveryLogLimit: 50,
    sessionTtlMs: 3_600_000,
    cacheSize: 3,
  });
  for (const id of MAIN_ACCOUNTS) await store.accounts.create(givenAccount(id, { withKeys: false }));
  process.stdout.write('ready\n');
  let next = Number(first);
  const worker = async (): Promise<never> => {
    for (;;) {
      const n = next++;
      await writeOf(store, n);
      // Synchronous on a pipe: once written, the parent can read it even after a SIGKILL.
      process.stdout.write(`ack ${n}\n`);
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, worker));
}

main().catch((error: unknown) => {
  process.stderr.write(`${String((error as Error).stack ?? error)}\n`);
  process.exit(1);
});
