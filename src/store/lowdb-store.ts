import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';

import { Low, Memory } from 'lowdb';
import { JSONFile } from 'lowdb/node';

import { emptyData, type Data, type DeepReadonly } from './data.js';
import type { Store } from './store.js';

const LAZY_FLUSH_MS = 1000;

/**
 * lowdb behind the Store interface. The adapter is chosen here explicitly (lowdb's
 * JSONFilePreset would silently switch to memory under NODE_ENV=test). JSONFile writes
 * through steno: a temporary file renamed over the old one, so a crash never leaves a
 * half-written file.
 */
class LowdbStore implements Store {
  readonly persistent: boolean;
  readonly #db: Low<Data>;
  #scheduled: Promise<void> | null = null;
  #inFlight: Promise<void> = Promise.resolve();
  #lazyTimer: NodeJS.Timeout | null = null;

  constructor(db: Low<Data>, persistent: boolean) {
    this.#db = db;
    this.persistent = persistent;
  }

  read<T>(fn: (data: DeepReadonly<Data>) => T): T {
    return fn(this.#db.data as DeepReadonly<Data>);
  }

  async write<T>(fn: (data: Data) => T, options: { durable?: boolean } = {}): Promise<T> {
    const result = fn(this.#db.data);
    if (options.durable === false) this.#scheduleLazyFlush();
    else await this.#requestFlush();
    return result;
  }

  async flush(): Promise<void> {
    if (this.#lazyTimer) clearTimeout(this.#lazyTimer);
    this.#lazyTimer = null;
    await this.#requestFlush();
  }

  /**
   * Coalesces writes: changes made while a write is on its way are written together by the
   * next one, so a burst of requests costs two serialisations, not one per request.
   */
  #requestFlush(): Promise<void> {
    if (!this.#scheduled) {
      const next = this.#inFlight.then(() => {
        this.#scheduled = null;
        return this.#db.write();
      });
      this.#scheduled = next;
      this.#inFlight = next.catch(() => undefined);
    }
    return this.#scheduled;
  }

  #scheduleLazyFlush(): void {
    if (this.#lazyTimer) return;
    this.#lazyTimer = setTimeout(() => {
      this.#lazyTimer = null;
      this.#requestFlush().catch(() => undefined);
    }, LAZY_FLUSH_MS);
    this.#lazyTimer.unref();
  }
}

export class StoreFileError extends Error {}

/**
 * Opens the store. `file` is a path or `:memory:`. When the file does not exist (or is
 * empty) the state comes from `initialData()` and is written at once; otherwise the stored
 * state is kept.
 */
export async function openStore(
  file: string,
  initialData: () => Data | Promise<Data>,
): Promise<{ store: Store; seeded: boolean }> {
  if (file === ':memory:') {
    const db = new Low<Data>(new Memory<Data>(), await initialData());
    return { store: new LowdbStore(db, false), seeded: true };
  }
  await mkdir(dirname(file), { recursive: true });
  const existing = await readExisting(file);
  const db = new Low<Data>(new JSONFile<Data>(file), existing ?? (await initialData()));
  const store = new LowdbStore(db, true);
  if (!existing) await store.flush();
  return { store, seeded: !existing };
}

async function readExisting(file: string): Promise<Data | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new StoreFileError(`DATA_FILE ${file} cannot be read: ${(error as Error).message}`);
  }
  if (text.trim() === '') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new StoreFileError(
      `DATA_FILE ${file} is not valid JSON (${(error as Error).message}); move it away or delete it to start from the fixtures`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || (parsed as { schemaVersion?: unknown }).schemaVersion !== 1) {
    throw new StoreFileError(
      `DATA_FILE ${file} is not a water-sandbox state file of schemaVersion 1; move it away or delete it to start from the fixtures`,
    );
  }
  // Collections added in later versions start empty.
  return { ...emptyData(), ...(parsed as Partial<Data>) } as Data;
}
