import { accountMsAt, accountNowMs } from '../clock/index.js';
import type { Clock } from '../core/clock.js';
import { LimitError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { AccountDoc, DeepReadonly, DeliveryRecord, ReadinessDigest } from '../store/data.js';
import { AccountMissingError, JOURNAL_LIMIT, type Store } from '../store/store.js';
import { madeAtMs, settle, type Judged } from './deliveries.js';
import {
  buildReport,
  foldInSlices,
  initialFoldState,
  isFoldState,
  type FoldState,
  type ReadinessReport,
} from './report.js';

export interface ReadinessDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** Recognises the sandbox's relay endpoints (`water-sandbox listen`), which the https check leaves aside. */
  relays?: { classifyEndpoint(accountId: string, url: URL): 'own' | 'foreign' | null };
  /** Appends and attempts of this process between two folds of an account (foldInterval). */
  foldEvery: number;
}

/**
 * The most journal appends and webhook attempts a process lets pass between two folds of an
 * account's evidence when replicas share the store (Redis): up to 4 replicas share an account's
 * traffic, each folding after its own, and JOURNAL_LIMIT holds what they append in between.
 */
export const FOLD_EVERY = JOURNAL_LIMIT / 4;

/**
 * How many journal appends and webhook attempts of its own a process lets pass between folds of
 * an account's journal and delivery log into its readiness digest, so that evidence is read
 * before it leaves either (JOURNAL_LIMIT entries, `deliveryLogLimit` finished deliveries). A
 * store shared by replicas folds after a quarter of the smaller bound (FOLD_EVERY with the
 * defaults); a store of one process (lowdb, memory) after three quarters of it, the last quarter
 * being room for what arrives while a fold runs. Each fold stores the digest, so folding less
 * often is what keeps evidence cheap: the folds at 50 were about a tenth of a location GET's
 * CPU, and 150 cut them to a third of that; once the rest of a request got cheaper (round six),
 * they were a tenth again (docs/benchmarks.md).
 */
export function foldInterval(options: { sharedStore: boolean; deliveryLogLimit: number }): number {
  const bound = Math.min(JOURNAL_LIMIT, options.deliveryLogLimit);
  return Math.max(1, Math.floor(options.sharedStore ? bound / 4 : (bound * 3) / 4));
}

/** Deliveries read a page at a time, newest first, down to the settle line. */
const DELIVERY_PAGE = 100;
/** Accounts whose appends a process counts at once; past it, the count of the longest-counted one is dropped. */
const COUNTED_ACCOUNTS = 10_000;

/**
 * A readiness window opening at `sinceMs` on the process clock (`accountMs` on the account's,
 * where the evidence's times are read; the same when not given), counting journal entries after `cursor`.
 */
export function openedWindow(sinceMs: number, cursor: number, accountMs = sinceMs): ReadinessDigest {
  return { since: new Date(accountMs).toISOString(), sinceMs, cursor, state: initialFoldState(sinceMs) };
}

/** The account's window: the stored digest, or one that opened with the account. */
function digestOf(doc: DeepReadonly<AccountDoc>): DeepReadonly<ReadinessDigest> {
  if (doc.readiness) return doc.readiness;
  const createdMs = Date.parse(doc.account.createdAt);
  return openedWindow(createdMs, 0);
}

interface Advanced {
  doc: DeepReadonly<AccountDoc>;
  since: string;
  state: FoldState;
  live: Judged[];
  /** Journal entries and deliveries after the stored digest's: those folded here when the digest was not stored, else 0. */
  unstored: number;
}

/**
 * The integration readiness of each account (docs/readiness.md), computed from what the
 * store holds, so every replica answers the same: the request journal, folded into the
 * account's readiness digest as it fills, and the delivery log.
 */
export class Readiness {
  /** Activity of this process since each account's last fold, for the accounts counted. */
  readonly #appends = new Map<string, number>();
  readonly #folding = new Set<string>();
  /**
   * Whether a count has been dropped to keep #appends bounded. From then on, an account not
   * counted may have activity nobody counted, and is counted again from the store at its first
   * activity (#recount).
   */
  #dropped = false;

  constructor(private readonly deps: ReadinessDeps) {}

  /** Told of each journal append and webhook attempt of this process; folds the account's evidence now and then, off the request's path. */
  readonly noteActivity = (accountId: string): void => {
    const counted = this.#appends.get(accountId);
    if (counted === undefined && this.#dropped && !this.#folding.has(accountId)) {
      this.#count(accountId, 1);
      this.#recount(accountId);
      return;
    }
    const count = (counted ?? 0) + 1;
    // While a fold of the account runs, the count goes on: the next activity after it folds again.
    if (count < this.deps.foldEvery || this.#folding.has(accountId)) {
      this.#count(accountId, count);
      return;
    }
    // Kept at 0, not forgotten: once counts have been dropped, an account not counted is counted again.
    this.#count(accountId, 0);
    this.#fold(accountId);
  };

  /**
   * Sets the account's count; a new one past COUNTED_ACCOUNTS drops the oldest count instead of
   * folding that account now (an idle account, whose files the embedded store reads back from
   * disk: a read for each account made past 10,000, docs/benchmarks.md). Its evidence stays in
   * the journal and the log until its next activity, which counts it again first (#recount).
   */
  #count(accountId: string, count: number): void {
    if (this.#appends.size >= COUNTED_ACCOUNTS && !this.#appends.has(accountId)) {
      const oldest = this.#appends.keys().next().value;
      if (oldest !== undefined) this.#appends.delete(oldest);
      this.#dropped = true;
    }
    this.#appends.set(accountId, count);
  }

  /**
   * Counts again, from the store, what an account not counted has after its stored digest (its
   * count may be one dropped), while it is in use: loaded, on the embedded store. The fold runs
   * but its digest is stored only when that is a good part of the interval; otherwise the
   * account's count becomes what lies after the stored digest, plus the activity noted meanwhile
   * (some of it counted twice: a count too high folds sooner, never later).
   */
  #recount(accountId: string): void {
    this.#folding.add(accountId);
    this.#advance(accountId, Math.ceil(this.deps.foldEvery / 2))
      .then((advanced) => {
        if (advanced) this.#count(accountId, (this.#appends.get(accountId) ?? 0) + advanced.unstored);
      })
      .catch((error: unknown) => this.deps.logger.warn('readiness fold failed', { accountId, err: error }))
      .finally(() => this.#folding.delete(accountId));
  }

  #fold(accountId: string): void {
    this.#folding.add(accountId);
    this.#advance(accountId)
      .catch((error: unknown) => this.deps.logger.warn('readiness fold failed', { accountId, err: error }))
      .finally(() => this.#folding.delete(accountId));
  }

  /** The account's report, or null when the account is gone. */
  async report(accountId: string): Promise<ReadinessReport | null> {
    const advanced = await this.#advance(accountId);
    if (!advanced) return null;
    const { doc, since, state, live } = advanced;
    const now = { atMs: this.deps.clock.now().getTime(), accountMs: accountNowMs(this.deps.clock, doc.clock) };
    return buildReport({
      accountId,
      since,
      state,
      live,
      doc,
      now,
      isRelay: (endpoint) => this.#isRelay(accountId, endpoint),
    });
  }

  /** Opens a new window now: evidence from before it no longer counts. */
  async reset(accountId: string): Promise<void> {
    const newest = (await this.deps.store.journal.list(accountId, 1))[0]?.seq ?? 0;
    const nowMs = this.deps.clock.now().getTime();
    await this.deps.store.accounts.update(accountId, (d) => {
      d.readiness = openedWindow(nowMs, newest, accountMsAt(nowMs, d.clock));
    });
  }

  /**
   * Folds the journal entries the digest has not seen, and the deliveries that settled, into it,
   * and stores it when at least `storeFrom` journal entries and deliveries lie after the stored
   * one (always when its form is older); a fold whose digest is not stored says how many in `unstored`.
   */
  async #advance(accountId: string, storeFrom = 0): Promise<Advanced | null> {
    const { store, logger, clock } = this.deps;
    const doc = await store.accounts.get(accountId);
    if (!doc) return null;
    const digest = digestOf(doc);
    const state: FoldState = isFoldState(digest.state)
      ? structuredClone(digest.state)
      : initialFoldState(digest.sinceMs);
    const [journal, fresh] = await Promise.all([
      store.journal.list(accountId, JOURNAL_LIMIT),
      this.#deliveriesSince(accountId, state.deliveries.settledBeforeMs),
    ]);
    const entries = journal.filter((entry) => (entry.seq ?? 0) > digest.cursor).reverse();
    const firstSeq = entries[0]?.seq;
    if (digest.cursor > 0 && firstSeq !== undefined && firstSeq > digest.cursor + 1) {
      logger.warn('readiness evidence missed: journal entries left before they were read', {
        accountId,
        missed: firstSeq - digest.cursor - 1,
      });
    }
    await foldInSlices(state, entries);
    const { live, changed } = settle(state.deliveries, fresh, clock.now().getTime());
    const cursor = entries.at(-1)?.seq ?? digest.cursor;
    const unstored = entries.length + fresh.length;
    const moved = cursor !== digest.cursor || changed;
    if (!isFoldState(digest.state) || (moved && unstored >= storeFrom)) {
      await this.#store(accountId, digest, { since: digest.since, sinceMs: digest.sinceMs, cursor, state });
      return { doc, since: digest.since, state, live, unstored: 0 };
    }
    return { doc, since: digest.since, state, live, unstored };
  }

  /**
   * The account's deliveries made at or after `sinceMs`, newest first: the log keeps them in the
   * order they were made. A delivery added while the pages are read shifts them: one read twice
   * is kept once.
   */
  async #deliveriesSince(accountId: string, sinceMs: number): Promise<DeepReadonly<DeliveryRecord>[]> {
    const found = new Map<string, DeepReadonly<DeliveryRecord>>();
    for (let offset = 0; ; offset += DELIVERY_PAGE) {
      const { items } = await this.deps.store.deliveries.list(accountId, { offset, limit: DELIVERY_PAGE });
      for (const delivery of items) {
        if (madeAtMs(delivery) < sinceMs) return [...found.values()];
        found.set(delivery.deliveryId, delivery);
      }
      if (items.length < DELIVERY_PAGE) return [...found.values()];
    }
  }

  /** Stores the advanced digest unless the window changed meanwhile (another replica folded, or a reset). */
  async #store(accountId: string, before: DeepReadonly<ReadinessDigest>, after: ReadinessDigest): Promise<void> {
    try {
      await this.deps.store.accounts.update(accountId, (d, tx) => {
        const current = d.readiness ?? digestOf(d);
        if (current.sinceMs !== before.sinceMs || current.cursor !== before.cursor) return;
        // Written with the next write of the account, or within a second: a write of the account
        // file at every fold (every 50 requests then) was about a tenth of a GET's CPU. A digest a crash loses
        // is folded again from the journal's entries after the older cursor.
        tx.writeLazily();
        // The store keeps a copy of the changed document: `after` needs none of its own.
        d.readiness = after;
      });
    } catch (error) {
      if (error instanceof LimitError) {
        // A full account (ACCOUNT_STORAGE_LIMIT) keeps its digest as it was: the report is still
        // folded from the journal, and evidence that leaves the journal meanwhile is missed.
        this.deps.logger.warn('readiness digest not stored: the account is full', { accountId, limit: error.limit });
        return;
      }
      if (!(error instanceof AccountMissingError)) throw error;
    }
  }

  #isRelay(accountId: string, endpoint: string): boolean {
    if (!this.deps.relays || !URL.canParse(endpoint)) return false;
    return this.deps.relays.classifyEndpoint(accountId, new URL(endpoint)) === 'own';
  }
}
