import type { JournalEntry } from '../data.js';
import { JOURNAL_LIMIT, type Announcement, type EventBus, type JournalStore } from '../store.js';
import type { AccountCache } from './account-cache.js';
import { isObject, type JournalFileData, type LoadedAccount } from './loaded-account.js';
import { LowdbFile } from './lowdb-file.js';

/** The journal may exceed its limit by this many entries before a trim. */
const JOURNAL_SLACK = 50;
/** How soon journals reach the disk: losing a few seconds of one is harmless, and each request writes it. */
const JOURNAL_FLUSH_MS = 5000;

/** Request journals of the embedded store: journals/<id>.json, opened with the account's first use of it and written lazily. */
export class EmbeddedJournal implements JournalStore {
  constructor(
    private readonly cache: AccountCache,
    private readonly events: EventBus,
  ) {}

  append(accountId: string, entry: JournalEntry, announce?: Announcement): Promise<void> {
    return this.cache.with(accountId, (loaded) => {
      // The journal of an account in use is open already: the append is then synchronous.
      if (loaded?.journal) return this.#appendTo(loaded.journal, entry, announce);
      return this.#journalOf(accountId, loaded).then((journal) =>
        journal ? this.#appendTo(journal, entry, announce) : undefined,
      );
    });
  }

  list(accountId: string, limit: number): Promise<JournalEntry[]> {
    return this.cache.with(accountId, async (loaded) => {
      const entries = (await this.#journalOf(accountId, loaded))?.data.entries ?? [];
      return entries.slice(-Math.min(limit, JOURNAL_LIMIT)).reverse();
    });
  }

  clear(accountId: string): Promise<void> {
    return this.cache.with(accountId, async (loaded) => {
      const journal = await this.#journalOf(accountId, loaded);
      if (!journal) return;
      journal.data.entries = [];
      await journal.save(false, JOURNAL_FLUSH_MS);
    });
  }

  #appendTo(
    journal: LowdbFile<JournalFileData>,
    entry: JournalEntry,
    announce: Announcement | undefined,
  ): Promise<void> {
    const entries = journal.data.entries;
    const seq = lastSeqOf(journal.data) + 1;
    journal.data.lastSeq = seq;
    entries.push({ ...entry, seq });
    if (entries.length > JOURNAL_LIMIT + JOURNAL_SLACK) entries.splice(0, entries.length - JOURNAL_LIMIT);
    // A lazy save only schedules the write: its promise is already settled.
    void journal.save(false, JOURNAL_FLUSH_MS);
    return announce ? this.events.publish(announce.channel, announce.message) : Promise.resolve();
  }

  async #journalOf(accountId: string, loaded: LoadedAccount | null): Promise<LowdbFile<JournalFileData> | null> {
    if (!loaded) return null;
    if (loaded.journal) return loaded.journal;
    const path = this.cache.path('journals', accountId);
    const opened = path === null ? null : await LowdbFile.open(path, validateJournal).catch(() => null);
    // Another call may have opened it while this one waited: then that one is kept.
    return this.cache.journalOf(accountId, loaded, () =>
      afterDigest(
        opened ?? LowdbFile.create<JournalFileData>(path, { entries: [] }),
        loaded.file.data.doc.readiness?.cursor ?? 0,
      ),
    );
  }
}

/**
 * A journal whose next seq comes after the readiness digest's cursor. The digest reaches the
 * account's file within a second, the journal its own within JOURNAL_FLUSH_MS: after a crash the
 * journal may read back behind the digest, and entries given seqs the digest has counted already
 * would never be folded into it.
 */
function afterDigest(journal: LowdbFile<JournalFileData>, cursor: number): LowdbFile<JournalFileData> {
  if (cursor > lastSeqOf(journal.data)) journal.data.lastSeq = cursor;
  return journal;
}

/** The seq of the journal's last entry, kept when it was cleared (files of older versions have only their entries). */
function lastSeqOf(data: JournalFileData): number {
  return data.lastSeq ?? data.entries.at(-1)?.seq ?? 0;
}

function validateJournal(parsed: unknown): JournalFileData {
  return isObject(parsed) && Array.isArray(parsed['entries'])
    ? (parsed as unknown as JournalFileData)
    : { entries: [] };
}
