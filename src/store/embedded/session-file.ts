import session, { type SessionData } from 'express-session';

import type { Clock } from '../../core/clock.js';
import type { LowdbFile } from './lowdb-file.js';

export interface SessionsDocument {
  sessions: Record<string, { session: Record<string, unknown>; expiresAtMs: number }>;
}

/**
 * express-session's store over a lowdb document, so login sessions survive restarts and
 * nothing uses express-session's MemoryStore. A session ends `ttlMs` after its last use, on
 * the process clock: it belongs to a browser, not to an account. Expired ones are dropped
 * whenever a session is written, so the document holds only live sessions.
 */
export class LowdbSessionStore extends session.Store {
  constructor(
    private readonly file: LowdbFile<SessionsDocument>,
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {
    super();
  }

  override get(sid: string, callback: (err: unknown, session?: SessionData | null) => void): void {
    const record = this.file.data.sessions[sid];
    if (!record || record.expiresAtMs <= this.#nowMs()) {
      callback(null, null);
      return;
    }
    callback(null, structuredClone(record.session) as unknown as SessionData);
  }

  override set(sid: string, data: SessionData, callback?: (err?: unknown) => void): void {
    const nowMs = this.#nowMs();
    this.#prune(nowMs);
    this.file.data.sessions[sid] = { session: JSON.parse(JSON.stringify(data)) as Record<string, unknown>, expiresAtMs: nowMs + this.ttlMs };
    this.#finish(this.file.save(), callback);
  }

  override destroy(sid: string, callback?: (err?: unknown) => void): void {
    delete this.file.data.sessions[sid];
    this.#finish(this.file.save(), callback);
  }

  override touch(sid: string, _data: SessionData, callback?: () => void): void {
    const record = this.file.data.sessions[sid];
    if (record) record.expiresAtMs = this.#nowMs() + this.ttlMs;
    this.#finish(this.file.save(false), callback);
  }

  /** How many live sessions there are (express-session's optional `length`). */
  override length(callback: (err: unknown, length?: number) => void): void {
    const nowMs = this.#nowMs();
    callback(null, Object.values(this.file.data.sessions).filter((s) => s.expiresAtMs > nowMs).length);
  }

  /** Every live session (express-session's optional `all`). */
  override all(callback: (err: unknown, sessions?: SessionData[] | { [sid: string]: SessionData } | null) => void): void {
    const nowMs = this.#nowMs();
    const live = Object.entries(this.file.data.sessions).filter(([, s]) => s.expiresAtMs > nowMs);
    callback(null, Object.fromEntries(live.map(([sid, s]) => [sid, structuredClone(s.session) as unknown as SessionData])));
  }

  #prune(nowMs: number): void {
    for (const [sid, record] of Object.entries(this.file.data.sessions)) if (record.expiresAtMs <= nowMs) delete this.file.data.sessions[sid];
  }

  #nowMs(): number {
    return this.clock.now().getTime();
  }

  #finish(done: Promise<unknown>, callback?: (err?: unknown) => void): void {
    done.then(
      () => callback?.(),
      (error: unknown) => callback?.(error),
    );
  }
}
