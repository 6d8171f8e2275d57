// What one change of an account costs when the account is full (issue 29): an account filled to
// ACCOUNT_STORAGE_LIMIT (1 MiB, the hosted default) with faults of 90 kB, as the hostile tenant
// does, on the embedded store in memory. Two changes: a refused one (one more 90 kB fault: 409
// limit_reached) and an accepted one (the account clock moved). Each is timed through the store,
// and against a baseline in the same run, in alternating rounds: the same change done the
// whole-document way (a deep copy of the document, its JSON text, and the JSON of each part
// again for the refusal's message), what every change cost before the store counted sizes part
// by part. CPU time of the process per change, median of the rounds; the ratio is store / baseline.
//
// Alone, for instruction counts that do not depend on the machine's load:
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null node bench/account-writes.js refused store 200
// (a case, store or baseline, and the number of changes; compare with 0 changes for what starting costs).
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

import { ManualClock } from '../dist/core/clock.js';
import { emptyAccountDoc } from '../dist/store/data.js';
import { EmbeddedStore } from '../dist/store/embedded/embedded-store.js';
import { AccountStorageError } from '../dist/store/limits.js';
import { median } from './lib/measure.js';

export const title = 'one change of a full account (refused and accepted), store against the whole-document way';

const LIMIT = 1024 * 1024;
const FAULT_BYTES = 90_000;
const ROUNDS = 9;
const CHANGES_PER_ROUND = 100;

const fault = (i) => ({
  faultId: `fault-${i}`,
  accountId: 'full',
  method: 'GET',
  path: `/never/${i}`,
  status: 500,
  body: { pad: 'x'.repeat(FAULT_BYTES) },
  delayMs: 0,
  retryAfter: null,
  remaining: null,
  createdAt: '2026-01-01T00:00:00.000Z',
});

/** The changes measured: each gets a draft of the document and makes its change. */
const CHANGES = {
  refused: (doc, i) => void doc.faults.push(fault(`over-${i}`)),
  accepted: (doc, i) => void (doc.clock.offsetMs = i),
};

/** A store holding one account filled with faults until the next one would be refused. */
async function fullAccount() {
  const { store } = await EmbeddedStore.open({
    dir: null,
    clock: new ManualClock(Date.parse('2026-01-01T00:00:00Z')),
    limits: { accountBytes: LIMIT, pendingDeliveries: 0 },
  });
  const doc = emptyAccountDoc({
    accountId: 'full',
    name: 'A full account',
    origin: 'generated',
    initialLocations: [],
    createdAt: '2026-01-01T00:00:00.000Z',
  });
  for (let i = 0; i < 40; i++)
    doc.accessTokens.push({
      accessToken: `token-${i}`.padEnd(40, '0'),
      clientId: 'client',
      userId: 'user',
      accountId: 'full',
      expiresAt: '2026-01-02T00:00:00.000Z',
      revokedAt: null,
      grantId: `grant-${i}`,
    });
  await store.accounts.create(doc);
  for (let i = 0; ; i++) {
    try {
      await store.accounts.update('full', (d) => void d.faults.push(fault(i)));
    } catch (error) {
      if (error instanceof AccountStorageError) break;
      throw error;
    }
  }
  return store;
}

/** The whole-document way: a deep copy to change, its JSON and size, the parts' JSON again for a refusal. */
function wholeDocumentChange(stored, change, i) {
  const draft = structuredClone(stored);
  change(draft, i);
  const json = JSON.stringify(draft);
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > LIMIT) {
    for (const key of Object.keys(draft)) Buffer.byteLength(JSON.stringify(draft[key]) ?? '');
    return false;
  }
  return true;
}

async function storeChange(store, change, i) {
  try {
    await store.accounts.update('full', (d) => change(d, i));
    return true;
  } catch (error) {
    if (error instanceof AccountStorageError) return false;
    throw error;
  }
}

/** `count` changes of one kind, one way; the CPU time they took in ms. */
async function changes(store, how, kind, count, first = 0) {
  const change = CHANGES[kind];
  const stored = await store.accounts.get('full');
  const cpu = process.cpuUsage();
  for (let i = first; i < first + count; i++) {
    const ok = how === 'store' ? await storeChange(store, change, i) : wholeDocumentChange(stored, change, i);
    if (ok !== (kind === 'accepted')) throw new Error(`a ${kind} change was ${ok ? 'accepted' : 'refused'}`);
  }
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / 1000;
}

export async function run({ args }) {
  const store = await fullAccount();
  const size = Buffer.byteLength(JSON.stringify(await store.accounts.get('full')));
  const rounds = args.quick ? 3 : ROUNDS;
  console.log(
    `an account of ${size.toLocaleString('en-US')} bytes (limit ${LIMIT.toLocaleString('en-US')}: ${(await store.accounts.get('full')).faults.length} faults of ${FAULT_BYTES / 1000} kB); ${rounds} alternating rounds of ${CHANGES_PER_ROUND} changes each way`,
  );
  const started = performance.now();
  for (const kind of Object.keys(CHANGES)) {
    await changes(store, 'store', kind, 20);
    await changes(store, 'baseline', kind, 20);
    const perChange = { store: [], baseline: [] };
    for (let r = 0; r < rounds; r++)
      for (const how of r % 2 === 0 ? ['store', 'baseline'] : ['baseline', 'store'])
        perChange[how].push((await changes(store, how, kind, CHANGES_PER_ROUND, 1000 * (r + 1))) / CHANGES_PER_ROUND);
    const mine = median(perChange.store);
    const theirs = median(perChange.baseline);
    console.log(
      `${kind.padEnd(8)} change: store ${mine.toFixed(3)} ms CPU, whole-document way ${theirs.toFixed(3)} ms; store / whole-document ${(mine / theirs).toFixed(3)} (range of rounds: store ${Math.min(...perChange.store).toFixed(3)}-${Math.max(...perChange.store).toFixed(3)})`,
    );
  }
  console.log(`(${((performance.now() - started) / 1000).toFixed(1)} s)`);
  await store.close();
}

// Alone: `node bench/account-writes.js <refused|accepted> <store|baseline> <changes>`.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [kind = 'refused', how = 'store', count = '100'] = process.argv.slice(2);
  if (!CHANGES[kind] || !['store', 'baseline'].includes(how))
    throw new Error('usage: <refused|accepted> <store|baseline> <changes>');
  const store = await fullAccount();
  const ms = await changes(store, how, kind, Number(count));
  console.log(`${count} ${kind} changes, ${how}: ${ms.toFixed(1)} ms CPU`);
  await store.close();
}
