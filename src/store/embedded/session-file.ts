import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

import session, { type SessionData } from 'express-session';

import type { Clock } from '../../core/clock.js';
import { LowdbFile } from './lowdb-file.js';

/** One session's file: sessions/<sid>.json. */
interface SessionFile {
  session: Record<string, unknown>;
  expiresAtMs: number;
}

/** The file of version 2 of the store: every session in one sessions.json. Read once, to move its sessions into their own files. */
interface LegacySessionsDocument {
  sessions: Record<string, SessionFile>;
}

/** Session ids express-session makes (uid-safe: base64url); only such an id names a file. */
const SESSION_ID = /^[\w-]{1,128}$/;

/**
 * A touch (every request of a signed-in browser) moves the session's end in memory at once and
 * on disk within this delay: a crash may end a session up to this much early. Written at
 * once, a signed-in browser would write its file on every request.
 */
const TOUCH_FLUSH_MS = 60_000;

/** Session files read at once when the store opens. */
const READ_AT_ONCE = 64;

export interface EmbeddedSessionOptions {
  /** The folder of the session files (DATA_DIR/sessions); null keeps them in memory. */
  dir: string | null;
  /** Whether to read the sessions already in `dir` (not in a fresh DATA_DIR, which is not read). */
  readExisting: boolean;
  /** The sessions.json of version 2, moved into `dir` at open; null when there is none to read. */
  legacyFile: string | null;
  /** The process clock: sessions belong to browsers, not accounts. */
  clock: Clock;
  /** A session ends this long after its last use. */
  ttlMs: number;
  /** Sessions kept at most: past it, the least recently used one ends (MAX_SESSIONS). */
  maxSessions: number;
}

/**
 * express-session's store on the embedded backend: one small file per session
 * (DATA_DIR/sessions/<sid>.json, written atomically), and all of them in memory in the order of
 * their last use. So saving, touching or ending one session costs the same whatever the number
 * of sessions: it writes that session's file, and nothing else is scanned or rewritten.
 *
 * A session ends `ttlMs` after its last use (process clock). The least recently used come first
 * in memory, so the expired ones are dropped from the front as sessions are saved, each once.
 * At most `maxSessions` are kept: a sign-in past it ends the least recently used session, so a
 * flood of sign-ins can sign idle browsers out but never stop anyone from signing in (a refusal
 * instead would lock every partner out for a day). Only a sign-in makes a session: visitors
 * who are not signed in cost nothing here.
 */
export class EmbeddedSessionStore extends session.Store {
  /** Every live session, least recently used first (a Map keeps insertion order; a use re-inserts). */
  readonly #sessions = new Map<string, SessionFile>();
  /** Files with a write waiting or on its way; dropped once written, so memory holds the records only. */
  readonly #files = new Map<string, LowdbFile<SessionFile>>();
  readonly #options: EmbeddedSessionOptions;

  private constructor(options: EmbeddedSessionOptions) {
    super();
    this.#options = options;
  }

  /** Reads the session files (and moves the sessions of a version-2 sessions.json into files of their own). */
  static async open(options: EmbeddedSessionOptions): Promise<EmbeddedSessionStore> {
    const store = new EmbeddedSessionStore(options);
    const nowMs = options.clock.now().getTime();
    const found: [string, SessionFile][] = [];
    if (options.dir !== null && options.readExisting) {
      const { dir } = options;
      const names = await readdir(dir).catch(() => []);
      const readOne = async (name: string): Promise<void> => {
        const sid = name.endsWith('.json') ? name.slice(0, -'.json'.length) : '';
        const record = SESSION_ID.test(sid)
          ? parseSession(await readFile(join(dir, name), 'utf8').catch(() => ''))
          : null;
        if (record && record.expiresAtMs > nowMs) found.push([sid, record]);
        // A stray temporary file of an interrupted write, a damaged or an expired session: nothing to keep.
        else await rm(join(dir, name), { force: true });
      };
      for (let i = 0; i < names.length; i += READ_AT_ONCE)
        await Promise.all(names.slice(i, i + READ_AT_ONCE).map(readOne));
    }
    const legacy = options.legacyFile === null ? null : await readLegacy(options.legacyFile);
    if (legacy) {
      for (const [sid, record] of Object.entries(legacy.sessions)) {
        // Only signed-in sessions: that version stored one for every visitor too.
        const signedIn = isSessionFile(record) && typeof record.session['userId'] === 'string';
        if (SESSION_ID.test(sid) && signedIn && record.expiresAtMs > nowMs) found.push([sid, record]);
      }
    }
    found.sort((a, b) => a[1].expiresAtMs - b[1].expiresAtMs);
    for (const [sid, record] of found) store.#sessions.set(sid, record);
    store.#bound();
    if (legacy && options.legacyFile !== null) {
      await Promise.all(
        Object.keys(legacy.sessions).map((sid) =>
          store.#sessions.has(sid) ? store.#write(sid, true) : Promise.resolve(),
        ),
      );
      await rm(options.legacyFile, { force: true });
    }
    return store;
  }

  override get(sid: string, callback: (err: unknown, session?: SessionData | null) => void): void {
    const record = this.#sessions.get(sid);
    if (!record || record.expiresAtMs <= this.#nowMs()) {
      callback(null, null);
      return;
    }
    callback(null, structuredClone(record.session) as unknown as SessionData);
  }

  override set(sid: string, data: SessionData, callback?: (err?: unknown) => void): void {
    if (!SESSION_ID.test(sid)) {
      callback?.(new Error('a session id must be base64url characters'));
      return;
    }
    const nowMs = this.#nowMs();
    this.#pruneExpired(nowMs);
    this.#sessions.delete(sid);
    this.#sessions.set(sid, {
      session: JSON.parse(JSON.stringify(data)) as Record<string, unknown>,
      expiresAtMs: nowMs + this.#options.ttlMs,
    });
    this.#bound();
    this.#finish(this.#write(sid, true), callback);
  }

  override destroy(sid: string, callback?: (err?: unknown) => void): void {
    this.#sessions.delete(sid);
    this.#finish(this.#remove(sid), callback);
  }

  override touch(sid: string, _data: SessionData, callback?: () => void): void {
    const record = this.#sessions.get(sid);
    const nowMs = this.#nowMs();
    if (record && record.expiresAtMs > nowMs) {
      record.expiresAtMs = nowMs + this.#options.ttlMs;
      this.#sessions.delete(sid);
      this.#sessions.set(sid, record);
      void this.#write(sid, false);
    }
    callback?.();
  }

  /** How many live sessions there are (express-session's optional `length`; for tests and tools, not requests). */
  override length(callback: (err: unknown, length?: number) => void): void {
    const nowMs = this.#nowMs();
    callback(null, [...this.#sessions.values()].filter((s) => s.expiresAtMs > nowMs).length);
  }

  /** Every live session (express-session's optional `all`; for tests and tools, not requests). */
  override all(
    callback: (err: unknown, sessions?: SessionData[] | { [sid: string]: SessionData } | null) => void,
  ): void {
    const nowMs = this.#nowMs();
    const live = [...this.#sessions.entries()].filter(([, s]) => s.expiresAtMs > nowMs);
    callback(
      null,
      Object.fromEntries(live.map(([sid, s]) => [sid, structuredClone(s.session) as unknown as SessionData])),
    );
  }

  /** Writes every session change still waiting (touches are written lazily). */
  async flush(): Promise<void> {
    await Promise.all([...this.#files.values()].map((file) => file.flush()));
  }

  /** Drops the expired sessions at the front: each session is dropped once, so this costs the sessions it drops. */
  #pruneExpired(nowMs: number): void {
    for (const [sid, record] of this.#sessions) {
      if (record.expiresAtMs > nowMs) break;
      this.#sessions.delete(sid);
      void this.#remove(sid).catch(() => undefined);
    }
  }

  /** Ends the least recently used sessions past MAX_SESSIONS. */
  #bound(): void {
    for (const sid of this.#sessions.keys()) {
      if (this.#sessions.size <= this.#options.maxSessions) break;
      this.#sessions.delete(sid);
      void this.#remove(sid).catch(() => undefined);
    }
  }

  #write(sid: string, durable: boolean): Promise<void> {
    const { dir } = this.#options;
    const record = this.#sessions.get(sid);
    if (dir === null || !record) return Promise.resolve();
    let file = this.#files.get(sid);
    if (!file) {
      const created = LowdbFile.create<SessionFile>(join(dir, `${sid}.json`), record);
      created.hold({
        resized: () => undefined,
        written: () => {
          if (this.#files.get(sid) === created && !created.busy) this.#files.delete(sid);
        },
      });
      file = created;
      this.#files.set(sid, file);
    }
    file.data = record;
    return file.save(durable, TOUCH_FLUSH_MS);
  }

  async #remove(sid: string): Promise<void> {
    const { dir } = this.#options;
    if (dir === null) return;
    const file = this.#files.get(sid);
    this.#files.delete(sid);
    if (file) await file.remove();
    else await rm(join(dir, `${sid}.json`), { force: true });
  }

  #nowMs(): number {
    return this.#options.clock.now().getTime();
  }

  #finish(done: Promise<unknown>, callback?: (err?: unknown) => void): void {
    done.then(
      () => callback?.(),
      (error: unknown) => callback?.(error),
    );
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function isSessionFile(value: unknown): value is SessionFile {
  return isObject(value) && isObject(value['session']) && typeof value['expiresAtMs'] === 'number';
}

function parseSession(text: string): SessionFile | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return isSessionFile(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

async function readLegacy(path: string): Promise<LegacySessionsDocument | null> {
  const text = await readFile(path, 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) && isObject(parsed['sessions'])
      ? (parsed as unknown as LegacySessionsDocument)
      : { sessions: {} };
  } catch {
    // A damaged file of login sessions costs a sign-in, nothing more.
    return { sessions: {} };
  }
}
