import { appendFile, readFile, rm } from 'node:fs/promises';

import { inFolderMadeWhenMissing, type LowdbFile } from './lowdb-file.js';

/** A shard's log is folded into its file once it has this many lines, or as many as the shard has accounts if more. */
const LINES_BEFORE_FOLD = 64;

/** How soon a shard's file takes in what its log does not hold (last-request times): they decide only when an idle account expires, days later. */
export const LAZY_FOLD_MS = 60_000;

/** One line of a shard's log: an account's summary as it now is, or null when the account was deleted. */
export type LogLine<M> = [accountId: string, summary: M | null];

/**
 * The changes of an index shard since its file was last written, one JSON line each
 * (`index/<xx>.log`): a change of one account appends its line, however many accounts the
 * shard holds, instead of writing the shard's whole file. Once the log is as long as the shard
 * has accounts (and at least LINES_BEFORE_FOLD), the shard's file is written anew and the log
 * removed, so a change costs the same amortised at any number of accounts. At start-up the
 * lines are read over the file, in order, the last one of an account winning; a line the
 * process was killed while writing is not whole, and is skipped (its change was never
 * acknowledged).
 *
 * Everything a shard writes goes through one queue, so an append never meets a fold halfway:
 * lines appended while a fold runs go to the log that follows it.
 */
export class ShardLog<M> {
  #queue: Promise<void> = Promise.resolve();
  /** Lines waiting for the next append, and that append (lines queued meanwhile are written with it). */
  #waiting: string[] = [];
  #nextAppend: Promise<void> | null = null;
  #lazyFold: NodeJS.Timeout | null = null;

  constructor(
    private readonly path: string | null,
    private readonly file: LowdbFile<unknown>,
    private readonly accountsIn: () => number,
    /** Lines the log holds (read at start-up). */
    private lines = 0,
  ) {}

  /** The lines of the log at `path`, in order; none when it does not exist. */
  static async read<M>(path: string): Promise<{ lines: LogLine<M>[]; count: number }> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { lines: [], count: 0 };
      throw error;
    }
    const lines: LogLine<M>[] = [];
    let count = 0;
    for (const line of text.split('\n')) {
      if (line === '') continue;
      count++;
      try {
        const parsed = JSON.parse(line) as unknown;
        if (Array.isArray(parsed) && typeof parsed[0] === 'string') lines.push(parsed as LogLine<M>);
      } catch {
        // A line cut short by a kill: its change was never acknowledged.
      }
    }
    return { lines, count };
  }

  /** Appends the account's summary (null: deleted) to the log; resolves once it is on disk. */
  append(accountId: string, summary: M | null): Promise<void> {
    if (this.path === null) return Promise.resolve();
    this.#waiting.push(`${JSON.stringify([accountId, summary])}\n`);
    this.#nextAppend ??= this.#enqueue(async () => {
      const text = this.#waiting.join('');
      const count = this.#waiting.length;
      this.#waiting = [];
      this.#nextAppend = null;
      const path = this.path as string;
      await inFolderMadeWhenMissing(path, () => appendFile(path, text));
      this.lines += count;
      if (this.lines >= Math.max(LINES_BEFORE_FOLD, this.accountsIn())) await this.#fold();
    });
    return this.#nextAppend;
  }

  /** The shard's file is to take in a change that is not logged (a last-request time), within LAZY_FOLD_MS. */
  foldLazily(): void {
    if (this.path === null || this.#lazyFold) return;
    this.#lazyFold = setTimeout(() => void this.fold().catch(() => undefined), LAZY_FOLD_MS);
    this.#lazyFold.unref();
  }

  /** Writes the shard's file with everything it holds now and removes the log, when either holds a change the file lacks. */
  fold(): Promise<void> {
    return this.#enqueue(() => (this.lines > 0 || this.#lazyFold ? this.#fold() : Promise.resolve()));
  }

  /** Writes what waits: a fold when one was asked for lazily, and every append queued. */
  async flush(): Promise<void> {
    if (this.#lazyFold) await this.fold();
    await this.#queue;
  }

  async #fold(): Promise<void> {
    if (this.#lazyFold) clearTimeout(this.#lazyFold);
    this.#lazyFold = null;
    await this.file.save();
    if (this.path !== null && this.lines > 0) await rm(this.path, { force: true });
    this.lines = 0;
  }

  #enqueue(job: () => Promise<void>): Promise<void> {
    const run = this.#queue.then(job);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}
