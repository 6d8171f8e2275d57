import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';

import { present } from '../../core/errors.js';
import { hash32 } from '../../core/random.js';
import { isObject } from './loaded-account.js';
import { inFolderMadeWhenMissing, LowdbFile, StoreFileError } from './lowdb-file.js';
import { LINES_BEFORE_FOLD, ShardLog, type LogLine } from './shard-log.js';

/** Shards of each kind: at 100,000 accounts, about 25 summaries or 75 keys a shard. */
export const SHARD_COUNT = 4096;

/**
 * A shard's document: on disk `{"records": {"<id>": record, ...}}`, in memory a Map. Not a plain
 * object keyed by ids: V8 keeps at most 1,536 hidden-class transitions from the empty object,
 * thousands of live objects keyed by ids use them up, and then every object that gains its
 * properties one at a time (request headers, route parameters) gets a hidden class of its own:
 * on Node 24, 4,096 such objects halved the location GET's speed (docs/benchmarks.md, "Taken
 * back out, and why: objects keyed by ids").
 */
export interface ShardDocument<V> {
  records: Map<string, V>;
}

/** The shard's file text, written without building an object keyed by ids (see ShardDocument). */
export function shardText<V>(doc: ShardDocument<V>): string {
  const members: string[] = [];
  for (const [id, record] of doc.records) members.push(`${JSON.stringify(id)}:${JSON.stringify(record)}`);
  return `{"records":{${members.join(',')}}}`;
}

/** One shard in memory: its file (`<xxx>.json`), with its log (`<xxx>.log`) read over it. */
export class Shard<V> {
  /** Users that need it in memory: an account held by the account cache, an operation under way. */
  pins = 0;
  /** Told of each record added or removed while it is in memory (PagedShards counts them). */
  resized: (byRecords: number) => void = () => undefined;

  constructor(
    readonly number: number,
    readonly file: LowdbFile<ShardDocument<V>>,
    readonly log: ShardLog<V>,
  ) {}

  get count(): number {
    return this.file.data.records.size;
  }

  get(id: string): V | undefined {
    return this.file.data.records.get(id);
  }

  /** Sets the record (null: deletes it) and logs it; the write of its line, to await with the change it belongs to. */
  set(id: string, value: V | null): Promise<void> {
    this.setUnlogged(id, value);
    return this.log.append(id, value);
  }

  /** Sets the record (null: deletes it) in memory only: a line written later (set) carries it. */
  setUnlogged(id: string, value: V | null): void {
    const { records } = this.file.data;
    if (value === null) {
      if (records.delete(id)) this.resized(-1);
    } else {
      const had = records.has(id);
      records.set(id, value);
      if (!had) this.resized(1);
    }
  }

  /** A record changed in place and not logged (a last-request time): the shard's file takes it in within a minute. */
  changedLazily(): void {
    this.log.foldLazily();
  }

  entries(): [string, V][] {
    return [...this.file.data.records];
  }
}

/** What a lease holds in memory until it is released. */
export interface Lease {
  release(): void;
}

interface Loading<V> {
  promise: Promise<Shard<V>>;
  /** Pins to take for the callers waiting, when the shard arrives. */
  pins: number;
  /** Only scans wait for it. */
  cold: boolean;
}

/**
 * A kind of index record (account summaries, or keys), in SHARD_COUNT shards by hash of the
 * record's id, in `<folder>/<000-fff>.json` with their logs, of which only some are in memory:
 * those pinned (the summaries of the accounts the account cache holds, the shards an operation
 * uses) and, besides them, the ones used last while they hold at most `budget` records. A shard
 * is read when it is used, and let go when it is idle (everything it holds is on disk) and the
 * budget is passed. So memory follows the accounts in use and the budget, not the accounts
 * stored. In memory (`folder` null) every shard stays.
 *
 * The residency rule callers rely on: a shard returned pinned (`load(..., { pin: true })`, or a
 * lease) stays in memory until unpinned, so what they read and write of it synchronously is the
 * one copy there is.
 */
export class PagedShards<V> {
  /** Shards in memory. */
  readonly #resident = new Map<number, Shard<V>>();
  /**
   * Shards in memory that nobody pins, the one let go of longest ago first: the ones eviction
   * looks at, so a release costs the same however many shards are pinned.
   */
  readonly #unpinned = new Map<number, Shard<V>>();
  /** Shards in memory read for a scan and not used since: the first to go. */
  readonly #cold = new Set<number>();
  readonly #loading = new Map<number, Loading<V>>();
  /**
   * Shards that may have files (from the folder's listing at open, and every shard read or
   * written since); null until the listing is given. A shard outside it is known empty: it is
   * made in memory without a read, and a look-up in it needs none (knownEmpty).
   */
  #mayHaveFiles: Set<number> | null;
  /** Appends to shards not in memory and not yet on disk, a chain per shard: a read of the shard waits for them. */
  readonly #blind = new Map<number, Promise<void>>();
  /**
   * Lines each shard not in memory may still take without a read before its log is as long as
   * its file (see ShardLog.long; LINES_BEFORE_FOLD for one not read yet): then it is read and
   * folded, so a log written blind stays as short as one written in memory.
   */
  readonly #blindRoom = new Map<number, number>();
  /** Those reads and folds under way (flush waits for them). */
  readonly #blindFolds = new Set<Promise<void>>();
  #records = 0;
  /** Records in the unpinned shards: what the budget bounds. */
  #unpinnedRecords = 0;
  #reads = 0;
  /** Told of each shard read, before anyone uses it. */
  onRead: ((shard: Shard<V>) => void) | null = null;

  constructor(
    /** Where the shards' files are; null: in memory. */
    readonly folder: string | null,
    private readonly budget: number,
    private readonly isRecord: (value: unknown) => value is V,
  ) {
    // In memory no shard is ever let go, so one not in memory holds nothing.
    this.#mayHaveFiles = folder === null ? new Set() : null;
  }

  /** Gives the folder's listing: the shards with no file in it are known empty from now on (see knownEmpty). */
  knowListing(listing: readonly string[]): void {
    this.#mayHaveFiles = new Set(this.#numbersIn(listing));
  }

  /** Whether the shard holds no record, known without a read: never written, and not in memory. */
  knownEmpty(shard: number): boolean {
    return (
      this.#mayHaveFiles !== null &&
      !this.#mayHaveFiles.has(shard) &&
      !this.#resident.has(shard) &&
      !this.#loading.has(shard)
    );
  }

  shardOf(id: string): number {
    return hash32(id) % SHARD_COUNT;
  }

  /** Shards read from disk so far. */
  get reads(): number {
    return this.#reads;
  }

  /** Records in the shards in memory now. */
  get residentRecords(): number {
    return this.#records;
  }

  /** The shard when it is in memory (no read, no change of its place). */
  resident(shard: number): Shard<V> | undefined {
    return this.#resident.get(shard);
  }

  /**
   * The shard, read when not in memory. `pin`: pinned for the caller (unpin when done), taken in
   * the same turn it is found or arrives, so no eviction comes between. `cold`: a shard read only
   * for a scan goes first in line to be let go, and one in memory keeps its place.
   */
  load(shard: number, options: { pin?: boolean; cold?: boolean } = {}): Promise<Shard<V>> {
    const found = this.#resident.get(shard);
    if (found) {
      if (!options.cold) this.#cold.delete(shard);
      if (options.pin) this.#addPins(found, 1);
      return Promise.resolve(found);
    }
    let loading = this.#loading.get(shard);
    if (!loading) {
      const started: Loading<V> = {
        pins: 0,
        cold: options.cold === true,
        promise: Promise.resolve(null as unknown as Shard<V>),
      };
      started.promise = this.#read(shard)
        .then((read) => {
          this.#resident.set(shard, read);
          this.#unpinned.set(shard, read);
          if (started.cold) this.#cold.add(shard);
          this.#records += read.count;
          this.#unpinnedRecords += read.count;
          this.#addPins(read, started.pins);
          read.resized = (byRecords) => {
            this.#records += byRecords;
            if (read.pins === 0) this.#unpinnedRecords += byRecords;
          };
          read.log.whenIdle = () => this.#maybeEvict();
          this.evict();
          return read;
        })
        .finally(() => this.#loading.delete(shard));
      this.#loading.set(shard, started);
      loading = started;
    } else if (!options.cold) {
      // Wanted for itself too: not a scan's.
      loading.cold = false;
    }
    if (options.pin) loading.pins++;
    return loading.promise;
  }

  /**
   * Appends the lines to the shard's log, in one write, without reading the shard when it is
   * not in memory (its next read takes them in, and waits for the write). In memory, or being
   * read, they go through its log, and its records are left as they are: the caller has set
   * them already, or lays them over the shard when it is read (the key journal, account-index.ts).
   */
  async appendLines(number: number, lines: readonly LogLine<V>[]): Promise<void> {
    if (lines.length === 0 || this.folder === null) return;
    if (this.#resident.has(number) || this.#loading.has(number)) {
      await this.use(number, (shard) => Promise.all(lines.map(([id, value]) => shard.log.append(id, value))));
      return;
    }
    this.#mayHaveFiles?.add(number);
    const path = join(this.folder, `${shardName(number)}.log`);
    const text = lines.map((line) => `${JSON.stringify(line)}\n`).join('');
    const write = (this.#blind.get(number) ?? Promise.resolve()).then(() =>
      inFolderMadeWhenMissing(path, () => appendFile(path, text)),
    );
    const settled = write.catch(() => undefined);
    this.#blind.set(number, settled);
    void settled.then(() => {
      if (this.#blind.get(number) === settled) this.#blind.delete(number);
    });
    const room = (this.#blindRoom.get(number) ?? LINES_BEFORE_FOLD) - lines.length;
    this.#blindRoom.set(number, room);
    if (room <= 0) {
      this.#blindRoom.delete(number);
      const folded = settled
        .then(() => this.use(number, (shard) => (shard.log.long ? shard.log.fold() : undefined), true))
        .then(
          () => undefined,
          () => undefined,
        );
      this.#blindFolds.add(folded);
      void folded.then(() => this.#blindFolds.delete(folded));
    }
    await write;
  }

  /** Pins the shards (each once), read as needed; released together. */
  async lease(shards: Iterable<number>): Promise<Lease> {
    const unique = [...new Set(shards)];
    const held = await Promise.all(unique.map((shard) => this.load(shard, { pin: true })));
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        for (const shard of held) this.unpin(shard);
      },
    };
  }

  /** Pins a shard in memory (it must be: see the residency rule). */
  pin(shard: number): void {
    this.#addPins(present(this.#resident.get(shard), 'a shard to pin'), 1);
  }

  unpin(shardOrNumber: Shard<V> | number): void {
    const shard =
      typeof shardOrNumber === 'number'
        ? present(this.#resident.get(shardOrNumber), 'a shard to unpin')
        : shardOrNumber;
    shard.pins--;
    if (shard.pins > 0) return;
    this.#unpinned.set(shard.number, shard);
    this.#unpinnedRecords += shard.count;
    this.#maybeEvict();
  }

  #addPins(shard: Shard<V>, pins: number): void {
    if (pins === 0) return;
    if (shard.pins === 0) {
      this.#unpinned.delete(shard.number);
      this.#unpinnedRecords -= shard.count;
    }
    shard.pins += pins;
  }

  /** Runs `fn` with the shard pinned (read as needed; `cold`: for a scan, see load). */
  async use<T>(shard: number, fn: (shard: Shard<V>) => T, cold = false): Promise<T> {
    const found = await this.load(shard, { pin: true, cold });
    try {
      return fn(found);
    } finally {
      this.unpin(found);
    }
  }

  /**
   * Every record of every shard on disk or in memory, a shard at a time (read cold, `batch` side
   * by side): for scans (start-up, the idle sweep, the accounts list). `fn` must not keep the
   * records it is given beyond its call.
   */
  async scan(shards: Iterable<number>, fn: (shard: Shard<V>) => void, batch = 32): Promise<void> {
    const all = [...shards];
    for (let i = 0; i < all.length; i += batch) {
      await Promise.all(all.slice(i, i + batch).map((shard) => this.use(shard, fn, true)));
    }
  }

  /** The shards that hold records: on disk (from the folder's listing) and in memory. */
  stored(listing: readonly string[]): number[] {
    const numbers = new Set<number>(this.#resident.keys());
    for (const number of this.#numbersIn(listing)) numbers.add(number);
    return [...numbers].sort((a, b) => a - b);
  }

  *#numbersIn(listing: readonly string[]): Iterable<number> {
    for (const name of listing) {
      const match = /^([0-9a-f]{3})\.(json|log)$/.exec(name);
      if (match?.[1] !== undefined) yield Number.parseInt(match[1], 16);
    }
  }

  /** Lets go of idle unpinned shards, a scan's first, then the one released longest ago, while they hold more than the budget. */
  evict(): void {
    if (this.folder === null || this.#unpinnedRecords <= this.budget) return;
    for (const number of this.#cold) {
      if (this.#unpinnedRecords <= this.budget) return;
      this.#letGo(number);
    }
    for (const number of this.#unpinned.keys()) {
      if (this.#unpinnedRecords <= this.budget) return;
      this.#letGo(number);
    }
  }

  #letGo(number: number): void {
    const shard = present(this.#resident.get(number), 'a shard in memory');
    if (shard.pins > 0) return;
    if (shard.log.idle) {
      this.#blindRoom.set(number, Math.max(LINES_BEFORE_FOLD, shard.count) - shard.log.lineCount);
      this.#resident.delete(number);
      this.#unpinned.delete(number);
      this.#cold.delete(number);
      this.#records -= shard.count;
      this.#unpinnedRecords -= shard.count;
      shard.resized = () => undefined;
      shard.log.whenIdle = null;
    } else if (shard.log.onlyFoldWaits) {
      // A last-request time waits for its lazy fold: fold it now, and the shard goes once idle.
      void shard.log.fold().catch(() => undefined);
    }
  }

  /** Writes what waits: in every shard in memory, and the lines appended to the others with their folds. */
  async flush(): Promise<void> {
    await Promise.all([...this.#blind.values(), ...this.#blindFolds]);
    await Promise.all([...this.#resident.values()].map((shard) => shard.log.flush()));
  }

  /** Folds every log of a shard in memory into its file. */
  async fold(): Promise<void> {
    await Promise.all([...this.#resident.values()].map((shard) => shard.log.fold()));
  }

  #maybeEvict(): void {
    if (this.#unpinnedRecords > this.budget) this.evict();
  }

  async #read(number: number): Promise<Shard<V>> {
    await this.#blind.get(number);
    const name = shardName(number);
    const path = this.folder === null ? null : join(this.folder, `${name}.json`);
    const logPath = this.folder === null ? null : join(this.folder, `${name}.log`);
    const onDisk = this.#mayHaveFiles === null || this.#mayHaveFiles.has(number);
    this.#mayHaveFiles?.add(number);
    if (onDisk && path !== null) this.#reads++;
    const opened =
      path === null || !onDisk ? null : await LowdbFile.open(path, (parsed) => this.#validate(parsed), shardText);
    const file = opened ?? LowdbFile.create<ShardDocument<V>>(path, { records: new Map() }, shardText);
    let logLines = 0;
    if (logPath !== null && onDisk) {
      const log = await ShardLog.read<V>(logPath);
      for (const [id, value] of log.lines) {
        if (value === null) file.data.records.delete(id);
        else if (this.isRecord(value)) file.data.records.set(id, value);
      }
      logLines = log.count;
    }
    let shard: Shard<V> | null = null;
    const log = new ShardLog<V>(
      logPath,
      file as LowdbFile<unknown>,
      () => present(shard, 'the shard of a log').count,
      logLines,
    );
    shard = new Shard(number, file, log);
    // A log as long as the file (lines appended blind, here or before a restart) is folded now.
    if (log.long) void log.fold().catch(() => undefined);
    this.onRead?.(shard);
    return shard;
  }

  #validate(parsed: unknown): ShardDocument<V> {
    if (!isObject(parsed) || !isObject(parsed['records']))
      throw new StoreFileError('an index shard of DATA_DIR is not valid');
    return { records: new Map(Object.entries(parsed['records']) as [string, V][]) };
  }
}

const shardName = (shard: number): string => shard.toString(16).padStart(3, '0');
