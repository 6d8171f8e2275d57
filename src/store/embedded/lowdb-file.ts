import { mkdir, readFile, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';

import { Low, Memory } from 'lowdb';
import { DataFile } from 'lowdb/node';

import { present } from '../../core/errors.js';

/** Writes marked not durable reach the disk within this delay, unless the caller gives another. */
const LAZY_FLUSH_MS = 1000;

export class StoreFileError extends Error {}

/** Who holds a file in memory (the account cache): told when its size changes, and when its writes are all done. */
export interface FileHolder {
  resized(byChars: number): void;
  written(): void;
}

/**
 * Runs `write` (of a file at `path`), and when its folder is missing, makes the folder and runs
 * it again: the usual write, into a folder there already, costs no mkdir (a round trip through
 * libuv's thread pool, one of the five an account's creation waited for).
 */
export async function inFolderMadeWhenMissing<T>(path: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await mkdir(dirname(path), { recursive: true });
    return write();
  }
}

/**
 * A JSON file's text and value; null when it does not exist or is empty. `name` is what the
 * messages call it; `remedy` what to do about a file that is not JSON.
 */
export async function readJsonFile(
  path: string,
  name: string,
  remedy: string,
): Promise<{ text: string; parsed: unknown } | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new StoreFileError(`${name} cannot be read: ${(error as Error).message}`);
  }
  if (text.trim() === '') return null;
  try {
    return { text, parsed: JSON.parse(text) as unknown };
  } catch (error) {
    throw new StoreFileError(`${name} is not valid JSON (${(error as Error).message}); ${remedy}`);
  }
}

/**
 * One lowdb document: a JSON file (or memory, when `path` is null), written atomically
 * (steno writes a temporary file and renames it, so a crash never leaves a half-written file).
 * The adapter is built here explicitly: lowdb's JSONFilePreset silently keeps data in memory
 * under NODE_ENV=test, which jest sets. Compact JSON, not lowdb's indented default: the files
 * are read by the sandbox, and indentation doubles the bytes written.
 *
 * Writes are coalesced: changes made while a write is on its way are written together by the
 * next one, so a burst of changes costs two serialisations, not one per change.
 */
export class LowdbFile<T> {
  readonly #db: Low<T>;
  readonly #path: string | null;
  #scheduled: Promise<void> | null = null;
  #inFlight: Promise<void> = Promise.resolve();
  #lazyTimer: NodeJS.Timeout | null = null;
  /** Writes started and not finished yet. */
  #writing = 0;
  /** At most this many characters a second are written (0: no limit; see `pace`). */
  #charsPerSecond = 0;
  #lastWriteStartMs = Number.NEGATIVE_INFINITY;
  #holder: FileHolder | null = null;
  /** Characters of the file's text when it was last read or written (0 in memory). */
  #size = 0;

  private constructor(db: Low<T>, path: string | null) {
    this.#db = db;
    this.#path = path;
  }

  /** The file's text from `stringify`, its size noted (and told to its holder). */
  static #measured<T>(stringify: (data: T) => string, file: () => LowdbFile<T>): (data: T) => string {
    return (data) => {
      const text = stringify(data);
      const measured = file();
      const before = measured.#size;
      measured.#size = text.length;
      measured.#holder?.resized(text.length - before);
      return text;
    };
  }

  /** Who is told of the file's changes of size and of the end of its writes from now on (null: nobody). */
  hold(holder: FileHolder | null): void {
    this.#holder = holder;
  }

  /**
   * Spaces the file's writes so that it is written at `charsPerSecond` at most: a write starts no
   * sooner than the last text's size at that rate after the last one began, and changes made
   * meanwhile are written together by it. 0 (the default) writes as soon as the last write is done.
   */
  pace(charsPerSecond: number): void {
    this.#charsPerSecond = charsPerSecond;
  }

  /** How large the file was when last read or written, in characters: what its data takes, roughly, while it is held. */
  get size(): number {
    return this.#size;
  }

  /** Opens the document; null when the file does not exist (or is empty). */
  static async open<T>(
    path: string,
    validate: (parsed: unknown) => T,
    stringify: (data: T) => string = JSON.stringify,
  ): Promise<LowdbFile<T> | null> {
    const read = await readJsonFile(path, path, 'move it away, or DATA_DIR, to start afresh');
    if (read === null) return null;
    let file: LowdbFile<T> | null = null;
    const db = new Low<T>(
      new DataFile<T>(path, {
        parse: JSON.parse,
        stringify: LowdbFile.#measured(stringify, () => present(file, 'the file being written')),
      }),
      validate(read.parsed),
    );
    file = new LowdbFile(db, path);
    file.#size = read.text.length;
    return file;
  }

  /**
   * A new document with `data`, not written until `save`. `path` null keeps it in memory.
   * `stringify` (JSON.stringify by default) makes the file's text from the data.
   */
  static create<T>(path: string | null, data: T, stringify: (data: T) => string = JSON.stringify): LowdbFile<T> {
    let file: LowdbFile<T> | null = null;
    const adapter =
      path === null
        ? new Memory<T>()
        : new DataFile<T>(path, {
            parse: JSON.parse,
            stringify: LowdbFile.#measured(stringify, () => present(file, 'the file being written')),
          });
    file = new LowdbFile(new Low<T>(adapter, data), path);
    return file;
  }

  get data(): T {
    return this.#db.data;
  }

  set data(value: T) {
    this.#db.data = value;
  }

  /** Persists the current data: now (durable), or within `withinMs` (bookkeeping a crash may lose). */
  save(durable = true, withinMs = LAZY_FLUSH_MS): Promise<void> {
    if (this.#path === null) return Promise.resolve();
    if (!durable) {
      this.#scheduleLazy(withinMs);
      return Promise.resolve();
    }
    return this.#requestWrite();
  }

  /** Writes pending changes now. */
  async flush(): Promise<void> {
    if (this.#lazyTimer) {
      clearTimeout(this.#lazyTimer);
      this.#lazyTimer = null;
      await this.#requestWrite();
    }
    await this.#inFlight;
  }

  /** Whether a write is waiting or on its way (a document is not dropped from memory until its writes are done). */
  get busy(): boolean {
    return this.#scheduled !== null || this.#lazyTimer !== null || this.#writing > 0;
  }

  /** Deletes the file, after any write on its way. */
  async remove(): Promise<void> {
    if (this.#lazyTimer) clearTimeout(this.#lazyTimer);
    this.#lazyTimer = null;
    await this.#inFlight;
    if (this.#path !== null) await rm(this.#path, { force: true });
  }

  #requestWrite(): Promise<void> {
    if (!this.#scheduled) {
      const next = this.#inFlight.then(async () => {
        if (this.#charsPerSecond > 0) {
          const wait = this.#lastWriteStartMs + (this.#size / this.#charsPerSecond) * 1000 - performance.now();
          if (wait > 0) await delay(wait);
          this.#lastWriteStartMs = performance.now();
        }
        this.#scheduled = null;
        this.#writing++;
        try {
          await inFolderMadeWhenMissing(this.#path ?? '.', () => this.#db.write());
        } finally {
          this.#writing--;
          if (!this.busy) this.#holder?.written();
        }
      });
      this.#scheduled = next;
      this.#inFlight = next.catch(() => undefined);
    }
    return this.#scheduled;
  }

  #scheduleLazy(withinMs: number): void {
    if (this.#lazyTimer) return;
    this.#lazyTimer = setTimeout(() => {
      this.#lazyTimer = null;
      this.#requestWrite().catch(() => undefined);
    }, withinMs);
    this.#lazyTimer.unref();
  }
}
