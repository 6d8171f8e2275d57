import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { emptyData, type Data } from '../../src/store/data.js';
import { openStore, StoreFileError } from '../../src/store/lowdb-store.js';

const tempFile = async (): Promise<string> => join(await mkdtemp(join(tmpdir(), 'store-')), 'nested', 'state.json');

const withAccount = (name: string): Data => ({
  ...emptyData(),
  accounts: [{ accountId: 'a1', name, origin: 'fixture', initialLocations: [], createdAt: '2026-01-01T00:00:00.000Z' }],
});

describe('the lowdb store on a file', () => {
  it('creates the folder, seeds a missing file, and keeps the stored state on the next open', async () => {
    const file = await tempFile();
    const first = await openStore(file, () => withAccount('seeded'));
    expect(first.seeded).toBe(true);
    await first.store.write((d) => {
      d.accounts[0]!.name = 'changed';
    });

    const second = await openStore(file, () => withAccount('never used'));
    expect(second.seeded).toBe(false);
    expect(second.store.read((d) => d.accounts[0]!.name)).toBe('changed');
  });

  it('loses no write when many requests change state at once', async () => {
    const file = await tempFile();
    const { store } = await openStore(file, () => emptyData());
    await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        store.write((d) => {
          d.journal.push({ accountId: 'a', method: 'GET', path: `/${i}`, query: {}, status: 200, time: '', durationMs: 0, auth: 'api_key' });
        }),
      ),
    );
    const onDisk = JSON.parse(await readFile(file, 'utf8')) as Data;
    expect(onDisk.journal).toHaveLength(200);
    expect(new Set(onDisk.journal.map((e) => e.path)).size).toBe(200);
  });

  it('persists lazy writes on flush', async () => {
    const file = await tempFile();
    const { store } = await openStore(file, () => emptyData());
    await store.write((d) => {
      d.faults.push({ faultId: 'f', accountId: 'a', method: null, path: null, status: 500, body: null, delayMs: 0, remaining: 1, createdAt: '' });
    }, { durable: false });
    await store.flush();
    const reopened = await openStore(file, () => emptyData());
    expect(reopened.store.read((d) => d.faults)).toHaveLength(1);
  });

  it('writes through a temporary file renamed into place, so no half-written file is ever left', async () => {
    const file = await tempFile();
    const { store } = await openStore(file, () => emptyData());
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.write((d) => void d.accounts.push(withAccount(`n${i}`).accounts[0]!))));
    const names = await readdir(join(file, '..'));
    expect(names).toEqual(['state.json']);
    expect((JSON.parse(await readFile(file, 'utf8')) as Data).accounts).toHaveLength(20);
  });

  it('refuses a state file that is not JSON, naming the file and the way out', async () => {
    const file = await tempFile();
    await openStore(file, () => emptyData());
    await writeFile(file, '{"schemaVersion": 1, "accounts": [');
    await expect(openStore(file, () => emptyData())).rejects.toThrow(StoreFileError);
    await expect(openStore(file, () => emptyData())).rejects.toThrow(`DATA_FILE ${file} is not valid JSON`);
  });

  it('refuses a JSON file that is not a sandbox state file', async () => {
    const file = await tempFile();
    await openStore(file, () => emptyData());
    await writeFile(file, '{"users": []}');
    await expect(openStore(file, () => emptyData())).rejects.toThrow('not a water-sandbox state file');
  });
});

describe('the in-memory store', () => {
  it('keeps state for the life of the process only', async () => {
    const { store, seeded } = await openStore(':memory:', () => withAccount('memory'));
    expect(seeded).toBe(true);
    expect(store.persistent).toBe(false);
    await store.write((d) => {
      d.accounts[0]!.name = 'x';
    });
    expect(store.read((d) => d.accounts[0]!.name)).toBe('x');
  });
});
