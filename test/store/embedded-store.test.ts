import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { jest } from '@jest/globals';

import { ManualClock } from '../../src/core/clock.js';
import { indexEntriesOf } from '../../src/store/derived.js';
import {
  EmbeddedStore,
  STORE_SCHEMA_VERSION,
  type EmbeddedStoreOptions,
} from '../../src/store/embedded/embedded-store.js';
import { LowdbFile, StoreFileError } from '../../src/store/embedded/lowdb-file.js';
import { eventually } from '../helpers/waiting.js';
import {
  givenAccount,
  givenAttempt,
  givenDelivery,
  givenFault,
  givenJournalEntry,
  INDEX_KINDS,
  keyOf,
  T0,
} from './builders.js';
import { givenSession, sessionApi } from './contract/sessions.js';
import type { StoreContractOptions, StoreUnderTest } from './contract/suite.js';
import { describeStoreContract } from './contract.js';

const tempDir = (): Promise<string> => mkdtemp(join(tmpdir(), 'water-store-'));

async function openEmbedded(
  options: Omit<EmbeddedStoreOptions, 'clock'> & { clock: ManualClock },
): Promise<EmbeddedStore> {
  return (await EmbeddedStore.open(options)).store;
}

describeStoreContract(
  'the embedded store in memory',
  async (clock: ManualClock, options: StoreContractOptions): Promise<StoreUnderTest> => {
    const store = await openEmbedded({ dir: null, clock, ...options });
    return { store, close: () => store.close() };
  },
  { expiresOn: 'clock', persistent: false },
);

describeStoreContract(
  'the embedded store on lowdb files',
  async (clock: ManualClock, options: StoreContractOptions): Promise<StoreUnderTest> => {
    const dir = await tempDir();
    // Small caches, so the contract also runs with accounts and index shards read back from their files.
    const openHere = (): Promise<EmbeddedStore> =>
      openEmbedded({ dir, clock, cacheSize: 2, indexCacheRecords: 1, ...options });
    let store = await openHere();
    return {
      store,
      reopen: async () => {
        await store.close();
        store = await openHere();
        return store;
      },
      close: async () => {
        await store.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
  { expiresOn: 'clock', persistent: true },
);

describe('the embedded store on lowdb files', () => {
  let dir: string;
  let clock: ManualClock;
  const opened: EmbeddedStore[] = [];
  const open = async (cacheSize?: number, accountWriteRate?: number): Promise<EmbeddedStore> => {
    const store = await openEmbedded({
      dir,
      clock,
      deliveryLogLimit: 100,
      sessionTtlMs: 3_600_000,
      ...(cacheSize === undefined ? {} : { cacheSize }),
      ...(accountWriteRate === undefined ? {} : { accountWriteRate }),
    });
    opened.push(store);
    return store;
  };

  beforeEach(async () => {
    dir = await tempDir();
    clock = new ManualClock(T0);
  });

  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  describe('the bounded cache', () => {
    const ids = ['a1', 'a2', 'a3', 'a4', 'a5'];
    /** A store that keeps two accounts loaded, holding the five accounts of `ids`, after `count` changes made at once (change i is to account i mod 5). */
    async function changedAtOnce(
      count: number,
      change: (store: EmbeddedStore, id: string, i: number) => Promise<unknown>,
    ): Promise<EmbeddedStore> {
      const store = await open(2);
      for (const id of ids) await store.accounts.create(givenAccount(id));
      await Promise.all(Array.from({ length: count }, (_, i) => change(store, ids[i % ids.length]!, i)));
      return store;
    }

    it('keeps at most cacheSize accounts loaded after each use, and evicted accounts read back whole', async () => {
      const store = await open(2);
      for (const id of ids) {
        await store.accounts.create(givenAccount(id), [givenDelivery(id, `d-${id}`)]);
        expect(store.loadedAccounts).toBeLessThanOrEqual(2);
      }
      for (const id of ids) {
        await store.accounts.update(id, (doc) => void doc.faults.push(givenFault(id, `f-${id}`)));
        await store.deliveries.update(id, `d-${id}`, (d) => void (d.state = 'delivered'));
        expect(store.loadedAccounts).toBeLessThanOrEqual(2);
      }
      for (const id of ids) {
        const doc = await store.accounts.get(id);
        expect(doc?.account.accountId).toBe(id);
        expect(doc?.faults.map((f) => f.faultId)).toEqual([`f-${id}`]);
        expect((await store.deliveries.get(id, `d-${id}`))?.state).toBe('delivered');
        expect(await store.accounts.lookup('apiKey', keyOf('apiKey', id))).toBe(id);
        expect(store.loadedAccounts).toBeLessThanOrEqual(2);
      }
    });

    it('keeps at most cacheBytes of account files loaded: big accounts leave memory first when least recently used, and read back whole', async () => {
      const store = await openEmbedded({
        dir,
        clock,
        deliveryLogLimit: 100,
        sessionTtlMs: 3_600_000,
        cacheSize: 100,
        cacheBytes: 250_000,
      });
      opened.push(store);
      const bulky = (id: string, n: number) => ({ ...givenFault(id, `f${n}`), body: { blob: 'x'.repeat(100_000) } });
      for (const id of ids) {
        await store.accounts.create(givenAccount(id));
        await store.accounts.update(id, (doc) => void doc.faults.push(bulky(id, 1)));
        // Two accounts of about 100 kB fit, a third does not.
        expect(store.loadedAccounts).toBeLessThanOrEqual(2);
      }
      for (const id of ids) {
        expect((await store.accounts.get(id))?.faults.map((f) => JSON.stringify(f.body).length)).toEqual([100_011]);
        expect(store.loadedAccounts).toBeLessThanOrEqual(2);
      }
      // Small accounts are many to the same bytes.
      for (const id of ['s1', 's2', 's3', 's4', 's5']) await store.accounts.create(givenAccount(id));
      for (const id of ['s1', 's2', 's3', 's4', 's5'])
        expect((await store.accounts.get(id))?.account.accountId).toBe(id);
      expect(store.loadedAccounts).toBeGreaterThanOrEqual(5);
    });

    it('an account with a journal write waiting stays loaded until the write is done, then is evicted; its journal reads back', async () => {
      const store = await open(2);
      for (const id of ids) {
        await store.accounts.create(givenAccount(id));
        await store.journal.append(id, givenJournalEntry(id, 1));
      }
      // Journal writes are lazy; the cache comes back to its size once they are done.
      await store.flush();
      await eventually(() => store.loadedAccounts <= 2 || null);
      for (const id of ids) expect(await store.journal.list(id, 10)).toEqual([{ ...givenJournalEntry(id, 1), seq: 1 }]);
      for (const id of ids) await store.journal.append(id, givenJournalEntry(id, 2));
      await store.flush();
      expect(store.loadedAccounts).toBeLessThanOrEqual(2);
      // A journal read back from its file goes on counting from its last seq.
      for (const id of ids)
        expect(await store.journal.list(id, 10)).toEqual([
          { ...givenJournalEntry(id, 2), seq: 2 },
          { ...givenJournalEntry(id, 1), seq: 1 },
        ]);
    });

    it('concurrent updates of more accounts than the cache holds lose nothing', async () => {
      const store = await changedAtOnce(500, (s, id, i) =>
        s.accounts.update(id, (doc) => void doc.faults.push(givenFault(id, `f${i}`))),
      );
      expect(store.loadedAccounts).toBeLessThanOrEqual(2);
      for (const [n, id] of ids.entries()) {
        const faults = (await store.accounts.get(id))?.faults.map((f) => f.faultId) ?? [];
        expect(new Set(faults)).toEqual(new Set(Array.from({ length: 100 }, (_, k) => `f${k * ids.length + n}`)));
      }
      // And what is on disk agrees: a fresh process sees the same.
      await store.close();
      const again = await open(2);
      for (const id of ids) expect((await again.accounts.get(id))?.faults).toHaveLength(100);
    });

    it('workers updating more accounts than the cache holds, each waiting for its last update, lose nothing', async () => {
      const store = await open(2);
      for (const id of ids) await store.accounts.create(givenAccount(id));
      const workers = Array.from({ length: 8 }, async (_, w) => {
        for (let i = 0; i < 40; i++) {
          const id = ids[(w + i) % ids.length]!;
          await store.accounts.update(id, (doc) => void doc.faults.push(givenFault(id, `w${w}-${i}`)));
        }
      });
      await Promise.all(workers);
      const count = async (s: EmbeddedStore): Promise<number> => {
        let total = 0;
        for (const id of ids) total += (await s.accounts.get(id))?.faults.length ?? 0;
        return total;
      };
      expect(await count(store)).toBe(8 * 40);
      await store.close();
      expect(await count(await open(2))).toBe(8 * 40);
    });

    it('counts the bytes it holds as their files measure, through creations, changes, journal appends, evictions and deletions', async () => {
      const store = await openEmbedded({
        dir,
        clock,
        deliveryLogLimit: 100,
        sessionTtlMs: 3_600_000,
        cacheSize: 3,
        cacheBytes: 50_000_000,
      });
      opened.push(store);
      const eight = ['b1', 'b2', 'b3', 'b4', 'b5', 'b6', 'b7', 'b8'];
      for (const [n, id] of eight.entries()) {
        await store.accounts.create(givenAccount(id), [givenDelivery(id, `d-${id}`)]);
        await store.accounts.update(
          id,
          (doc) => void doc.faults.push({ ...givenFault(id, 'f'), body: 'x'.repeat(n * 100) }),
        );
        await store.journal.append(id, givenJournalEntry(id, n));
        // Its journal written, so that evictions happen in the order of use.
        await store.flush();
      }
      await store.accounts.delete('b8');
      // b4 and b2 read back from their files, then changed again (b2's journal grows).
      await store.accounts.update('b4', (doc) => void (doc.account.name = 'renamed'));
      await store.flush();
      await store.journal.append('b2', givenJournalEntry('b2', 99));
      await store.flush();
      // The three used last are held (least recently used leave first), b4 without its journal, which it did not open.
      expect(store.loadedAccounts).toBe(3);
      let onDisk = 0;
      for (const file of ['accounts/b7', 'journals/b7', 'accounts/b4', 'accounts/b2', 'journals/b2'])
        onDisk += (await readFile(join(dir, `${file}.json`), 'utf8')).length;
      expect(store.loadedBytes).toBe(onDisk);
    });

    it("a use of an account looks at that account's files only, however many accounts wait in the cache for their writes", async () => {
      const store = await openEmbedded({
        dir,
        clock,
        deliveryLogLimit: 100,
        sessionTtlMs: 3_600_000,
        cacheSize: 2,
        cacheBytes: 50_000_000,
      });
      opened.push(store);
      const many = Array.from({ length: 200 }, (_, i) => `m${i}`);
      for (const id of many) {
        await store.accounts.create(givenAccount(id));
        await store.journal.append(id, givenJournalEntry(id, 1));
      }
      // Their journals are written lazily (within 5 s): until then none of them may be evicted.
      expect(store.loadedAccounts).toBeGreaterThan(100);
      const size = jest.spyOn(LowdbFile.prototype, 'size', 'get');
      const busy = jest.spyOn(LowdbFile.prototype, 'busy', 'get');
      try {
        for (const id of many.slice(-20)) {
          await store.accounts.get(id);
          await store.journal.append(id, givenJournalEntry(id, 2));
        }
        // A few looks at each used account's own files; walking the others would be thousands.
        expect(size.mock.calls.length + busy.mock.calls.length).toBeLessThan(20 * 2 * 8);
      } finally {
        size.mockRestore();
        busy.mockRestore();
      }
      await store.flush();
      expect(store.loadedAccounts).toBeLessThanOrEqual(2);
    });

    it('keeps the accounts just used while more accounts than it holds wait for their writes, and evicts them when idle', async () => {
      const store = await open(2);
      const waiting = Array.from({ length: 50 }, (_, i) => `w${i}`);
      for (const id of waiting) {
        await store.accounts.create(givenAccount(id));
        await store.journal.append(id, givenJournalEntry(id, 1));
      }
      // All fifty wait for their lazy journal writes: none of them can leave yet.
      expect(store.loadedAccounts).toBe(50);
      // Two accounts made and used now stay (the cache holds two idle ones), a third pushes out the first.
      for (const id of ['new1', 'new2']) await store.accounts.create(givenAccount(id));
      expect(store.loadedAccounts).toBe(52);
      await store.accounts.update('new1', (doc) => void (doc.account.name = 'used again'));
      await store.accounts.create(givenAccount('new3'));
      expect(store.loadedAccounts).toBe(52);
      // Once the writes are done, the cache is back to its size: the two idle most recently.
      await store.flush();
      expect(store.loadedAccounts).toBe(2);
      expect((await store.accounts.get('new1'))?.account.name).toBe('used again');
    });

    it('concurrent journal appends and updates of more accounts than the cache holds lose nothing', async () => {
      const store = await changedAtOnce(300, (s, id, i) =>
        i % 2 === 0
          ? s.journal.append(id, givenJournalEntry(id, i))
          : s.accounts.update(id, (doc) => void doc.faults.push(givenFault(id, `f${i}`))),
      );
      await store.close();
      const again = await open(2);
      for (const [n, id] of ids.entries()) {
        const expected = Array.from({ length: 300 }, (_, i) => i).filter((i) => i % ids.length === n && i % 2 === 0);
        expect(new Set((await again.journal.list(id, 1000)).map((e) => e.query['n']))).toEqual(
          new Set(expected.map(String)),
        );
      }
    });
  });

  it('pages through accounts in creation order as accounts come and go after the first page was asked for', async () => {
    const store = await open();
    const times = new Map<string, number>();
    const create = async (id: string, createdAtMs: number): Promise<void> => {
      times.set(id, createdAtMs);
      await store.accounts.create(givenAccount(id, { createdAtMs }));
    };
    // Creation times out of id order, some the same.
    for (let n = 0; n < 40; n++) await create(`p${n}`, T0 + ((n * 7919) % 23) * 1000);
    expect((await store.accounts.list({ limit: 5 })).accounts).toHaveLength(5);
    for (let n = 0; n < 40; n += 4) {
      await store.accounts.delete(`p${n}`);
      times.delete(`p${n}`);
    }
    for (let n = 40; n < 50; n++) await create(`p${n}`, T0 + ((n * 104729) % 31) * 1000);
    const expected = [...times].sort(([a, at], [b, bt]) => at - bt || a.localeCompare(b)).map(([id]) => id);
    const paged: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await store.accounts.list({ limit: 7, ...(after === undefined ? {} : { after }) });
      paged.push(...page.accounts.map((a) => a.accountId));
      if (page.next === null) break;
      after = page.next;
    }
    expect(paged).toEqual(expected);
  });

  describe('files', () => {
    /** The index's shard files, by `<kind>/<name>` (kinds: summaries, keys). */
    const shardFiles = async (
      kinds: readonly string[] = ['summaries', 'keys'],
    ): Promise<Map<string, { text: string; ino: number; mtimeMs: number }>> => {
      const files = new Map<string, { text: string; ino: number; mtimeMs: number }>();
      for (const kind of kinds) {
        for (const name of await readdir(join(dir, 'index', kind)).catch(() => [])) {
          const path = join(dir, 'index', kind, name);
          const { ino, mtimeMs } = await stat(path);
          files.set(`${kind}/${name}`, { text: await readFile(path, 'utf8'), ino, mtimeMs });
        }
      }
      return files;
    };
    const logLinesOf = (files: Map<string, { text: string }>): [string, unknown][] =>
      [...files]
        .filter(([name]) => name.endsWith('.log'))
        .flatMap(([, file]) => file.text.split('\n').filter((line) => line !== ''))
        .map((line) => JSON.parse(line) as [string, unknown]);

    it("writes a change's summary as one line of its shard's log and its keys as lines of the keys' journal, whatever else they hold, and a restart reads them", async () => {
      const store = await open();
      // Enough accounts that some share a shard.
      const many = Array.from({ length: 300 }, (_, i) => `k${i}`);
      for (const id of many) await store.accounts.create(givenAccount(id));
      await store.close();
      const again = await open();
      const before = await shardFiles();
      // The summaries' shards were in memory, and were folded at close; the keys are lines of their journal.
      expect(
        [...before.keys()].filter((name) => name.startsWith('summaries/')).every((name) => name.endsWith('.json')),
      ).toBe(true);
      const k8Keys = [...indexEntriesOf(givenAccount('k8'))];

      await again.accounts.update('k7', (doc) => void doc.apiKeys.push({ ...doc.apiKeys[0]!, apiKey: 'k7-second' }));
      await again.accounts.delete('k8');
      await again.flush();
      const after = await shardFiles();
      // Every shard's file is as it was, and every log only grew, by one line for each change of a record.
      const grown = new Map<string, { text: string }>();
      for (const [name, file] of after) {
        const was = before.get(name);
        if (name.endsWith('.json')) expect(file).toEqual(was);
        else {
          expect(file.text.startsWith(was?.text ?? '')).toBe(true);
          grown.set(name, { text: file.text.slice(was?.text.length ?? 0) });
        }
      }
      for (const name of before.keys()) expect(after.has(name)).toBe(true);
      const ofKind = (kind: string): Map<string, { text: string }> =>
        new Map([...grown].filter(([name]) => name.startsWith(`${kind}/`)));
      const summaryLines = logLinesOf(ofKind('summaries'));
      expect(summaryLines.map(([id, summary]) => [id, summary === null]).sort()).toEqual([
        ['k7', false],
        ['k8', true],
      ]);
      const keyLines = logLinesOf(ofKind('keys'));
      expect(keyLines.sort()).toEqual(
        [
          ['apiKey:k7-second', 'k7'] as [string, unknown],
          ...k8Keys.map((key): [string, unknown] => [key, null]),
        ].sort(),
      );
      expect(JSON.stringify([...summaryLines, ...keyLines]).length).toBeLessThan(3000);

      // A process that ends without closing (a kill) leaves the logs: the next one reads them over the files.
      const third = await open();
      expect(await third.accounts.lookup('apiKey', 'k7-second')).toBe('k7');
      expect(await third.accounts.lookup('apiKey', keyOf('apiKey', 'k8'))).toBeNull();
      expect(await third.accounts.count()).toBe(many.length - 1);
    });

    it('makes a folder of DATA_DIR again when it is removed while the store runs (writes do not make it each time)', async () => {
      const store = await open();
      await store.accounts.create(givenAccount('kept'));
      await rm(join(dir, 'accounts'), { recursive: true });
      await rm(join(dir, 'index'), { recursive: true });

      // The account's file and its shard's log were written before: each is written again, folder and all.
      await store.accounts.update('kept', (doc) => {
        doc.account.name = 'renamed';
        doc.apiKeys.push({ ...doc.apiKeys[0]!, apiKey: 'kept-second' });
      });
      await store.flush();
      expect(await readdir(join(dir, 'accounts'))).toEqual(['kept.json']);
      for (const kind of ['summaries', 'keys'])
        expect((await readdir(join(dir, 'index', kind))).some((name) => name.endsWith('.log'))).toBe(true);

      // What was written after the folders came back is read by the next process (one killed: no close).
      const again = await open();
      expect((await again.accounts.get('kept'))?.account.name).toBe('renamed');
      expect(await again.accounts.lookup('apiKey', 'kept-second')).toBe('kept');
    });

    it("folds a shard's log into its file once it is long, and at close; a line cut short by a kill is skipped", async () => {
      const store = await open();
      await store.accounts.create(givenAccount('a'));
      for (let n = 0; n < 70; n++) await store.accounts.update('a', (doc) => void (doc.account.name = `name ${n}`));
      await store.flush();
      const logLines = async (): Promise<number> => logLinesOf(await shardFiles(['summaries'])).length;
      // 71 changes: folded after the 64th line, 7 since.
      expect(await logLines()).toBe(7);
      await store.close();
      expect(await logLines()).toBe(0);

      const again = await open();
      await again.accounts.update('a', (doc) => void (doc.account.name = 'logged'));
      await again.flush();
      const log = [...(await shardFiles(['summaries'])).keys()].find((name) => name.endsWith('.log'))!;
      await writeFile(join(dir, 'index', log), '["a",{"name":"cut', { flag: 'a' });
      const third = await open();
      expect((await third.accounts.list({ limit: 10 })).accounts.map((a) => a.name)).toEqual(['logged']);
    });

    it('keeps one file per account, and an update of one account rewrites only its own file', async () => {
      const store = await open();
      await store.accounts.create(givenAccount('a'));
      await store.accounts.create(givenAccount('b'));
      await store.flush();
      const fileOf = (id: string): string => join(dir, 'accounts', `${id}.json`);
      const before = { b: await stat(fileOf('b')), bText: await readFile(fileOf('b'), 'utf8') };

      await store.accounts.update('a', (doc) => void (doc.account.name = 'changed'));
      await store.deliveries.add('a', [givenDelivery('a', 'd1')]);
      await store.flush();

      const afterB = await stat(fileOf('b'));
      expect(afterB.ino).toBe(before.b.ino);
      expect(afterB.mtimeMs).toBe(before.b.mtimeMs);
      expect(await readFile(fileOf('b'), 'utf8')).toBe(before.bText);
      const a = JSON.parse(await readFile(fileOf('a'), 'utf8')) as {
        doc: { account: { name: string } };
        deliveries: { deliveryId: string }[];
      };
      expect(a.doc.account.name).toBe('changed');
      expect(a.deliveries.map((d) => d.deliveryId)).toEqual(['d1']);
    });

    it('writes a change made with tx.writeLazily after the update resolves, within a second; a change that is not lazy at once', async () => {
      const store = await open();
      await store.accounts.create(givenAccount('a'));
      await store.flush();
      const nameInFile = async (): Promise<string> =>
        (JSON.parse(await readFile(join(dir, 'accounts', 'a.json'), 'utf8')) as { doc: { account: { name: string } } })
          .doc.account.name;

      await store.accounts.update('a', (doc, tx) => {
        tx.writeLazily();
        doc.account.name = 'lazy';
      });
      expect(await nameInFile()).toBe('Account a');
      await eventually(async () => (await nameInFile()) === 'lazy', 3000);

      await store.accounts.update('a', (doc) => void (doc.account.name = 'at once'));
      expect(await nameInFile()).toBe('at once');
    });

    it('a failed attempt of a delivery still pending is written within a second; a delivery that ends, before its update returns', async () => {
      const store = await open();
      await store.accounts.create(givenAccount('a'));
      await store.deliveries.add('a', [givenDelivery('a', 'retried'), givenDelivery('a', 'ended')]);
      const fileOf = join(dir, 'accounts', 'a.json');
      const attemptsOnDisk = async (): Promise<Record<string, [string, number]>> => {
        const file = JSON.parse(await readFile(fileOf, 'utf8')) as {
          deliveries: { deliveryId: string; state: string; attempts: unknown[] }[];
        };
        return Object.fromEntries(file.deliveries.map((d) => [d.deliveryId, [d.state, d.attempts.length]]));
      };
      await store.deliveries.update('a', 'retried', (d) => void d.attempts.push(givenAttempt({ statusCode: 500 })));
      expect(await attemptsOnDisk()).toEqual({ retried: ['pending', 0], ended: ['pending', 0] });
      await store.deliveries.update('a', 'ended', (d) => {
        d.attempts.push(givenAttempt({ statusCode: 200 }));
        d.state = 'delivered';
      });
      // The durable write carries the lazy change made before it.
      expect(await attemptsOnDisk()).toEqual({ retried: ['pending', 1], ended: ['delivered', 1] });
      await store.deliveries.update('a', 'retried', (d) => void d.attempts.push(givenAttempt({ statusCode: 500 })));
      await eventually(async () => (await attemptsOnDisk())['retried']![1] === 2, 3000);
    });

    it("ACCOUNT_WRITE_RATE paces an account's file: a write starts its size at that rate after the last one began, and the changes meanwhile are written together", async () => {
      // 100,000 characters a second, and a file of about 50,000: writes 0.5 s apart at least.
      const store = await open(undefined, 100_000);
      const account = givenAccount('a');
      account.account.name = 'x'.repeat(50_000);
      await store.accounts.create(account);
      const fileOf = join(dir, 'accounts', 'a.json');
      const nameOnDisk = async (): Promise<string> =>
        (JSON.parse(await readFile(fileOf, 'utf8')) as { doc: { account: { name: string } } }).doc.account.name;
      await store.accounts.update('a', (doc) => void (doc.account.name = `first ${doc.account.name}`));
      const firstWritten = performance.now();
      // Five changes at once: answered together, once one write holding them all is on disk.
      const names = ['b', 'c', 'd', 'e', 'f'];
      const settledAt: number[] = [];
      await Promise.all(
        names.map((n) =>
          store.accounts
            .update('a', (doc) => void (doc.account.name = `${n} ${doc.account.name}`))
            .then(() => settledAt.push(performance.now())),
        ),
      );
      expect(Math.min(...settledAt) - firstWritten).toBeGreaterThanOrEqual(400);
      // One write for the five: written one by one, the last would come 2 s after the first.
      expect(Math.max(...settledAt) - Math.min(...settledAt)).toBeLessThan(400);
      expect((await nameOnDisk()).split(' ').slice(0, 6)).toEqual(['f', 'e', 'd', 'c', 'b', 'first']);
    });

    it('reads an account file of an older version, whose deliveries carry nextAttemptAt beside dueAtMs, without it, and writes it back without it', async () => {
      let store = await open(1);
      await store.accounts.create(givenAccount('a'), [givenDelivery('a', 'd1', { dueAtMs: T0 + 1000 })]);
      await store.close();
      const file = join(dir, 'accounts', 'a.json');
      const older = JSON.parse(await readFile(file, 'utf8')) as { deliveries: Record<string, unknown>[] };
      older.deliveries[0]!['nextAttemptAt'] = new Date(T0).toISOString();
      await writeFile(file, JSON.stringify(older));

      store = await open(1);
      expect(await store.deliveries.get('a', 'd1')).toStrictEqual(givenDelivery('a', 'd1', { dueAtMs: T0 + 1000 }));
      await store.deliveries.update('a', 'd1', (d) => void d.attempts.push(givenAttempt()));
      await store.flush();
      expect(await readFile(file, 'utf8')).not.toContain('nextAttemptAt');
    });

    it('lays the folder out as its header comment says, with no temporary file left', async () => {
      const store = await open();
      await store.accounts.create(givenAccount('a'));
      await store.accounts.create(givenAccount('b'));
      await store.journal.append('a', givenJournalEntry('a', 1));
      await store.settings.set('sessionSecret', 's');
      await sessionApi(store).set('sid', givenSession('u'));
      await store.close();

      const top = (await readdir(dir)).sort();
      expect(top).toEqual(['accounts', 'index', 'journals', 'sessions', 'store.json']);
      expect((await readdir(join(dir, 'accounts'))).sort()).toEqual(['a.json', 'b.json']);
      expect(await readdir(join(dir, 'journals'))).toEqual(['a.json']);
      expect((await readdir(join(dir, 'index'))).sort()).toEqual(['at-close.json', 'keys', 'summaries']);
      const shards = await shardFiles();
      expect(shards.size).toBeGreaterThan(0);
      // The summaries' shards are folded into their files at close; the keys are lines of their journal until it is full.
      for (const name of shards.keys())
        expect(name).toMatch(/^(summaries\/[0-9a-f]{3}\.json|keys\/[0-9a-f]{3}\.json|keys\/journal\.log)$/);

      expect(JSON.parse(await readFile(join(dir, 'store.json'), 'utf8'))).toEqual({
        schemaVersion: STORE_SCHEMA_VERSION,
        settings: { sessionSecret: 's' },
      });
      const account = JSON.parse(await readFile(join(dir, 'accounts', 'a.json'), 'utf8')) as Record<string, unknown>;
      expect(Object.keys(account).sort()).toEqual(['deliveries', 'doc']);
      expect(JSON.parse(await readFile(join(dir, 'journals', 'a.json'), 'utf8'))).toEqual({
        entries: [{ ...givenJournalEntry('a', 1), seq: 1 }],
        lastSeq: 1,
      });
      expect(await readdir(join(dir, 'sessions'))).toEqual(['sid.json']);
      expect(JSON.parse(await readFile(join(dir, 'sessions', 'sid.json'), 'utf8'))).toEqual({
        session: givenSession('u'),
        expiresAtMs: expect.any(Number),
      });

      // Every account summary is in exactly one shard, with its keys; every key in one shard, naming its account.
      const listed: Record<string, string> = {};
      const keys: Record<string, string> = {};
      const accounts: string[] = [];
      for (const [name, file] of shards) {
        const { records } = name.endsWith('.log')
          ? { records: Object.fromEntries(logLinesOf(new Map([[name, file]]))) }
          : (JSON.parse(file.text) as { records: Record<string, unknown> });
        if (name.startsWith('keys/')) {
          for (const [key, owner] of Object.entries(records)) {
            expect(keys[key]).toBeUndefined();
            keys[key] = owner as string;
          }
          continue;
        }
        for (const [owner, summary] of Object.entries(records as Record<string, { entries: string[] }>)) {
          for (const key of summary.entries) {
            expect(listed[key]).toBeUndefined();
            listed[key] = owner;
          }
        }
        accounts.push(...Object.keys(records));
      }
      expect(accounts.sort()).toEqual(['a', 'b']);
      expect(keys[`apiKey:${keyOf('apiKey', 'a')}`]).toBe('a');
      // Each account's key of every kind, once, in its summary and in the keys' shards alike.
      expect(Object.keys(keys)).toHaveLength(2 * INDEX_KINDS.length);
      expect(keys).toEqual(listed);
    });

    it("numbers new journal entries after the readiness digest's cursor when the journal file reads back behind it (a crash between the two writes)", async () => {
      let store = await open();
      await store.accounts.create(givenAccount('a'));
      for (let n = 1; n <= 3; n++) await store.journal.append('a', givenJournalEntry('a', n));
      await store.accounts.update('a', (d) => {
        d.readiness = { since: new Date(T0).toISOString(), sinceMs: T0, cursor: 3, state: null };
      });
      await store.close();
      // What a crash leaves when the account's file was written and the journal's was not yet:
      // the digest has read up to seq 3, the journal file holds only the first entry.
      const file = join(dir, 'journals', 'a.json');
      const onDisk = JSON.parse(await readFile(file, 'utf8')) as { entries: { seq: number }[] };
      await writeFile(file, JSON.stringify({ entries: onDisk.entries.slice(0, 1), lastSeq: 1 }));

      store = await open();
      await store.journal.append('a', givenJournalEntry('a', 4));
      expect((await store.journal.list('a', 10)).map((e) => e.seq)).toEqual([4, 1]);
    });

    it('delete removes the account file and its journal file', async () => {
      const store = await open();
      await store.accounts.create(givenAccount('a'));
      await store.journal.append('a', givenJournalEntry('a', 1));
      await store.flush();
      await store.accounts.delete('a');
      await store.flush();
      expect(await readdir(join(dir, 'accounts'))).toEqual([]);
      expect(await readdir(join(dir, 'journals'))).toEqual([]);
    });

    it('reports a fresh folder first, existing state on the next open', async () => {
      expect((await EmbeddedStore.open({ dir, clock, deliveryLogLimit: 10, sessionTtlMs: 1000 })).fresh).toBe(true);
      const second = await EmbeddedStore.open({ dir, clock, deliveryLogLimit: 10, sessionTtlMs: 1000 });
      opened.push(second.store);
      expect(second.fresh).toBe(false);
    });

    it('refuses a store.json of another schema version with a StoreFileError', async () => {
      const store = await open();
      await store.close();
      const { writeFile } = await import('node:fs/promises');
      await writeFile(join(dir, 'store.json'), JSON.stringify({ schemaVersion: 1, settings: {} }));
      await expect(EmbeddedStore.open({ dir, clock, deliveryLogLimit: 10, sessionTtlMs: 1000 })).rejects.toBeInstanceOf(
        StoreFileError,
      );
    });
  });

  describe('login sessions, one file each', () => {
    /** Every file under the folder, with what tells a write: its size and modification time (ns). */
    async function filesUnder(root: string): Promise<Map<string, string>> {
      const found = new Map<string, string>();
      for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
        if (!entry.isFile()) continue;
        const path = join(entry.parentPath, entry.name);
        const info = await stat(path, { bigint: true });
        found.set(path.slice(root.length + 1), `${info.size}/${info.mtimeNs}`);
      }
      return found;
    }

    it.each([10, 10_000])(
      "a save writes that session's file alone, of the same size, with %i sessions stored",
      async (stored) => {
        const store = await open();
        const sessions = sessionApi(store);
        for (let i = 0; i < stored; i += 500) {
          await Promise.all(
            Array.from({ length: Math.min(500, stored - i) }, (_, k) =>
              sessions.set(`stored-${i + k}`, givenSession(`u${i + k}`)),
            ),
          );
        }
        await store.flush();
        const before = await filesUnder(dir);
        await sessions.set('the-new-one', givenSession('u0'));
        await store.flush();
        const after = await filesUnder(dir);
        const changed = [...after].filter(([path, mark]) => before.get(path) !== mark).map(([path]) => path);
        expect(changed).toEqual([join('sessions', 'the-new-one.json')]);
        expect([...before.keys()].filter((path) => !after.has(path))).toEqual([]);
        expect(after.get(join('sessions', 'the-new-one.json'))!.split('/')[0]).toBe(
          before.get(join('sessions', 'stored-0.json'))!.split('/')[0],
        );
        // Storing 10,000 sessions file by file takes a few seconds on a busy machine.
      },
      90_000,
    );

    it("drops an expired session's file with the next save, and reads only live ones after a restart", async () => {
      const store = await open();
      const sessions = sessionApi(store);
      await sessions.set('old', givenSession('old'));
      clock.advance(3_600_000);
      await sessions.set('new', givenSession('new'));
      await store.flush();
      expect(await readdir(join(dir, 'sessions'))).toEqual(['new.json']);
      await store.close();
      const restarted = await open();
      expect(await sessionApi(restarted).get('new')).toEqual(givenSession('new'));
    });

    it('keeps the order of last use across a restart: the bound ends the least recently used first', async () => {
      const first = await openEmbedded({ dir, clock, deliveryLogLimit: 10, sessionTtlMs: 3_600_000, maxSessions: 3 });
      for (const sid of ['a', 'b', 'c']) {
        await sessionApi(first).set(sid, givenSession(sid));
        clock.advance(1000);
      }
      await sessionApi(first).touch('a', givenSession('a'));
      await first.close();
      const second = await openEmbedded({ dir, clock, deliveryLogLimit: 10, sessionTtlMs: 3_600_000, maxSessions: 3 });
      opened.push(second);
      clock.advance(1000);
      await sessionApi(second).set('d', givenSession('d'));
      expect(await sessionApi(second).get('b')).toBeFalsy();
      for (const sid of ['a', 'c', 'd']) expect(await sessionApi(second).get(sid)).toEqual(givenSession(sid));
      await second.flush();
      expect((await readdir(join(dir, 'sessions'))).sort()).toEqual(['a.json', 'c.json', 'd.json']);
    });

    it('moves the live signed-in sessions of an older sessions.json into files of their own, and removes it', async () => {
      const store = await open();
      await store.close();
      const { writeFile } = await import('node:fs/promises');
      const live = { session: givenSession('u1'), expiresAtMs: T0 + 60_000 };
      const dead = { session: givenSession('u2'), expiresAtMs: T0 - 1 };
      // A visitor's session of that version: a CSRF token and no user.
      const visitor = { session: { cookie: givenSession('u3').cookie, csrfToken: 'csrf' }, expiresAtMs: T0 + 60_000 };
      await writeFile(join(dir, 'sessions.json'), JSON.stringify({ sessions: { live, dead, visitor } }));
      const reopened = await open();
      expect(await sessionApi(reopened).get('live')).toEqual(givenSession('u1'));
      expect(await sessionApi(reopened).get('dead')).toBeFalsy();
      expect((await readdir(dir)).includes('sessions.json')).toBe(false);
      expect(await readdir(join(dir, 'sessions'))).toEqual(['live.json']);
    });
  });

  it('in memory it reports backend memory, not persistent', async () => {
    const store = await openEmbedded({ dir: null, clock, deliveryLogLimit: 10, sessionTtlMs: 1000 });
    expect([store.backend, store.persistent]).toEqual(['memory', false]);
    expect(await store.health()).toEqual({ ok: true });
  });
});
