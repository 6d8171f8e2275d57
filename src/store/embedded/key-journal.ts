import { appendFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

import { inFolderMadeWhenMissing } from './lowdb-file.js';
import { ShardLog, type LogLine } from './shard-log.js';

/** Keys the journal holds before its lines are written into the key shards' files: at most twice this in memory (a few MB). */
export const JOURNAL_KEYS = 16_384;

const CURRENT = 'journal.log';
const DISTRIBUTING = 'journal.old';

/** A generation of the journal: its keys' last values (null: taken out), and the same by shard. */
class Generation {
  readonly values = new Map<string, string | null>();
  readonly byShard = new Map<number, Map<string, string | null>>();

  set(shard: number, entry: string, owner: string | null): void {
    this.values.set(entry, owner);
    let ofShard = this.byShard.get(shard);
    if (!ofShard) this.byShard.set(shard, (ofShard = new Map<string, string | null>()));
    ofShard.set(entry, owner);
  }
}

/**
 * Every write of an index key (index/keys/journal.log): a change's keys as one appended line
 * each, in one append, whatever shards they fall in, so a change writes one file for its keys
 * instead of one for each. The journal's keys are held in memory until JOURNAL_KEYS of them
 * are: then the journal becomes journal.old, a new one starts, and the old one's lines are
 * appended to the logs of the key shards they fall in, one append a shard and no read
 * (`distribute`), after which journal.old is removed. A shard's log is folded into its file
 * once as long as it (shard-log.ts), so what a key costs to write stays the same however many
 * keys are stored. Because every key write goes through the journal, in order, its last line
 * of a key is that key's newest value: laying the journals (old, then current) over the
 * shards' files and logs when a shard is read is right whatever a kill interrupted, a
 * distribution included (made again at open, its lines appended again: the same values).
 */
export class KeyJournal {
  #current = new Generation();
  #distributing = new Generation();
  /** Lines waiting for the next append, and that append (lines queued meanwhile are written with it). */
  #batch: { lines: string[]; written: Promise<void> } | null = null;
  #queue: Promise<void> = Promise.resolve();
  #distribution: Promise<void> | null = null;

  private constructor(
    private readonly folder: string | null,
    private readonly shardOf: (entry: string) => number,
    /** Appends each shard's lines to its log (account-index.ts). */
    private readonly distribute: (byShard: ReadonlyMap<number, ReadonlyMap<string, string | null>>) => Promise<void>,
    private readonly limit: number,
  ) {}

  /** The journal of `folder` (null: in memory, where nothing is written); `resume` makes again a distribution a kill interrupted. */
  static async open(
    folder: string | null,
    shardOf: (entry: string) => number,
    distribute: (byShard: ReadonlyMap<number, ReadonlyMap<string, string | null>>) => Promise<void>,
    limit = JOURNAL_KEYS,
  ): Promise<KeyJournal> {
    const journal = new KeyJournal(folder, shardOf, distribute, limit);
    if (folder === null) return journal;
    const old = await ShardLog.read<string>(join(folder, DISTRIBUTING));
    const current = await ShardLog.read<string>(join(folder, CURRENT));
    journal.#take(journal.#distributing, old.lines);
    journal.#take(journal.#current, current.lines);
    return journal;
  }

  /** Makes again the distribution of a journal.old found at open (once the index can read its shards). */
  resume(): void {
    if (this.#distributing.values.size > 0) this.#startDistribution();
  }

  /** The key's newest value in the journal: its account, null when taken out, undefined when the journal has no line of it. */
  get(entry: string): string | null | undefined {
    const current = this.#current.values.get(entry);
    return current !== undefined ? current : this.#distributing.values.get(entry);
  }

  /** The journal's values of the keys of a shard, older first (to lay over the shard when it is read). */
  *valuesOf(shard: number): Iterable<[string, string | null]> {
    yield* this.#distributing.byShard.get(shard) ?? [];
    yield* this.#current.byShard.get(shard) ?? [];
  }

  /** Keys held now (for tests and benchmarks). */
  get size(): number {
    return this.#current.values.size + this.#distributing.values.size;
  }

  /** Records the keys' values (null: taken out) at once, and writes their lines; resolves once they are on disk. */
  append(lines: readonly LogLine<string>[]): Promise<void> {
    if (lines.length === 0) return Promise.resolve();
    this.#take(this.#current, lines);
    if (this.folder === null) return Promise.resolve();
    const path = join(this.folder, CURRENT);
    if (!this.#batch) {
      const batch = { lines: [] as string[], written: Promise.resolve() };
      batch.written = this.#enqueue(async () => {
        if (this.#batch === batch) this.#batch = null;
        await inFolderMadeWhenMissing(path, () => appendFile(path, batch.lines.join('')));
      });
      this.#batch = batch;
    }
    for (const line of lines) this.#batch.lines.push(`${JSON.stringify(line)}\n`);
    const { written } = this.#batch;
    this.#maybeRotate();
    // Past twice the limit while the last distribution runs: the change waits for it, so what memory holds stays bounded.
    if (this.#current.values.size >= 2 * this.limit && this.#distribution !== null)
      return Promise.all([written, this.#distribution]).then(() => undefined);
    return written;
  }

  /** Waits for the appends and the distributions under way. */
  async flush(): Promise<void> {
    await this.#queue;
    while (this.#distribution !== null) await this.#distribution;
  }

  /** Starts a distribution once the journal holds its limit; not while journal.old is still there (a distribution under way, or one that failed: the next start makes it again). */
  #maybeRotate(): void {
    if (this.#current.values.size >= this.limit && this.#distribution === null && this.#distributing.values.size === 0)
      this.#startDistribution(true);
  }

  #take(generation: Generation, lines: Iterable<LogLine<string>>): void {
    for (const [entry, owner] of lines) {
      if (owner === null || typeof owner === 'string') generation.set(this.shardOf(entry), entry, owner);
    }
  }

  /** Distributes journal.old (`rotate`: the current journal becomes it first, behind the appends queued). */
  #startDistribution(rotate = false): void {
    const folder = this.folder;
    if (folder === null) return;
    if (rotate) {
      this.#distributing = this.#current;
      this.#current = new Generation();
      // Lines from here on go to the journal after the rename, not into the batch before it.
      this.#batch = null;
    }
    const { byShard } = this.#distributing;
    const run = async (): Promise<void> => {
      if (rotate) await this.#enqueue(() => rename(join(folder, CURRENT), join(folder, DISTRIBUTING)));
      await this.distribute(byShard);
      await rm(join(folder, DISTRIBUTING), { force: true });
      this.#distributing = new Generation();
    };
    this.#distribution = run()
      .catch(() => undefined) // A failed distribution stays in journal.old and in memory: the next start makes it again.
      .finally(() => {
        this.#distribution = null;
        this.#maybeRotate();
      });
  }

  #enqueue(job: () => Promise<void>): Promise<void> {
    const run = this.#queue.then(job);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}
