import { randomUUID } from 'node:crypto';

import { RedisStore as ConnectRedisStore } from 'connect-redis';
import type { SessionData } from 'express-session';

import type { Clock } from '../../core/clock.js';
import type { JournalEntry } from '../data.js';
import { InProcessLocks } from '../embedded/in-process.js';
import {
  JOURNAL_LIMIT,
  sessionHolder,
  type Announcement,
  type Counters,
  type EventBus,
  type JournalStore,
  type Locks,
  type Settings,
} from '../store.js';
import { asText } from './codec.js';
import type { RedisConnection } from './connection.js';
import {
  APPEND_JOURNAL,
  DECREMENT_COUNTER,
  INCREMENT_COUNTER,
  INCREMENT_IN_WINDOW,
  LOCK_HOLDER,
  SESSION_USED,
  SET_IF_ABSENT,
} from './lua.js';

/** The Redis channel of an event bus channel. */
const eventChannelKey = (prefix: string, channel: string): string => `${prefix}ev:${channel}`;

/** The request journal: a list per account (`jrnl:<id>`), newest first, capped with LTRIM. */
export class RedisJournal implements JournalStore {
  constructor(
    private readonly connection: RedisConnection,
    private readonly prefix: string,
  ) {}

  async append(accountId: string, entry: JournalEntry, announce?: Announcement): Promise<void> {
    const args = [this.prefix, accountId, JSON.stringify(entry), String(JOURNAL_LIMIT)];
    if (announce) args.push(eventChannelKey(this.prefix, announce.channel), JSON.stringify(announce.message ?? null));
    await this.connection.script(APPEND_JOURNAL, args);
  }

  async list(accountId: string, limit: number): Promise<JournalEntry[]> {
    const count = Math.min(limit, JOURNAL_LIMIT);
    if (count <= 0) return [];
    const entries = await this.connection.run((c) => c.lRange(`${this.prefix}jrnl:${accountId}`, 0, count - 1));
    return entries.map((json) => JSON.parse(asText(json)) as JournalEntry);
  }

  async clear(accountId: string): Promise<void> {
    await this.connection.run((c) => c.del(`${this.prefix}jrnl:${accountId}`));
  }
}

/** Fixed-window counters: `ctr:<key>`, with a Redis TTL set by the first increment (and kept by a decrement to zero). */
export class RedisCounters implements Counters {
  constructor(
    private readonly connection: RedisConnection,
    private readonly prefix: string,
  ) {}

  async increment(key: string, ttlMs: number): Promise<number> {
    return Number(
      await this.connection.script(INCREMENT_COUNTER, [this.prefix, key, String(Math.max(1, Math.ceil(ttlMs)))]),
    );
  }

  async decrement(key: string): Promise<void> {
    await this.connection.script(DECREMENT_COUNTER, [this.prefix, key]);
  }

  async incrementInWindow(key: string, window: string, ttlMs: number): Promise<number> {
    return Number(
      await this.connection.script(INCREMENT_IN_WINDOW, [
        this.prefix,
        key,
        window,
        String(Math.max(1, Math.ceil(ttlMs))),
      ]),
    );
  }

  async get(key: string): Promise<number> {
    const value: unknown = await this.connection.run((c) => c.get(`${this.prefix}ctr:${key}`));
    return value === null || value === undefined ? 0 : Number(asText(value));
  }
}

/** How long a held lock lives without renewal by default: a holder that dies frees it after this. */
export const DEFAULT_LOCK_TTL_MS = 30_000;
const LOCK_POLL_MIN_MS = 5;
const LOCK_POLL_MAX_MS = 100;

/**
 * Locks with a lease: `lock:<name>` holds the holder's token with a Redis TTL, renewed while the
 * holder works and deleted (only by that holder) at the end. Within a process, callers queue on
 * an in-process lock first, so only one of them at a time polls Redis.
 */
export class RedisLocks implements Locks {
  readonly #local = new InProcessLocks();

  /** `ttlMs`: a withLock holder's lifetime without renewal; it renews at a third of it while `fn` runs. */
  constructor(
    private readonly connection: RedisConnection,
    private readonly prefix: string,
    private readonly ttlMs = DEFAULT_LOCK_TTL_MS,
  ) {}

  withLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
    return this.#local.withLock(name, async () => {
      const token = randomUUID();
      for (
        let waitMs = LOCK_POLL_MIN_MS;
        !(await this.#take(name, token, this.ttlMs));
        waitMs = Math.min(waitMs * 1.5, LOCK_POLL_MAX_MS)
      ) {
        await new Promise((resolve) => setTimeout(resolve, waitMs * (0.5 + Math.random())));
      }
      const renewal = setInterval(
        () => void this.#hold(name, token, String(this.ttlMs)).catch(() => undefined),
        this.ttlMs / 3,
      );
      renewal.unref();
      try {
        return await fn();
      } finally {
        clearInterval(renewal);
        await this.#hold(name, token, '').catch(() => undefined);
      }
    });
  }

  async tryLock(name: string, ttlMs: number): Promise<(() => Promise<void>) | null> {
    const releaseLocal = await this.#local.tryLock(name, ttlMs);
    if (!releaseLocal) return null;
    const token = randomUUID();
    let taken = false;
    try {
      taken = await this.#take(name, token, ttlMs);
    } finally {
      if (!taken) await releaseLocal();
    }
    if (!taken) return null;
    return async () => {
      try {
        await this.#hold(name, token, '');
      } finally {
        await releaseLocal();
      }
    };
  }

  async #take(name: string, token: string, ttlMs: number): Promise<boolean> {
    const reply = await this.connection.run((c) =>
      c.set(`${this.prefix}lock:${name}`, token, {
        condition: 'NX',
        expiration: { type: 'PX', value: Math.max(1, Math.ceil(ttlMs)) },
      }),
    );
    return reply !== null;
  }

  /** Renews the lock (a lifetime in ms) or releases it (''), if `token` still holds it. */
  async #hold(name: string, token: string, ttl: string): Promise<void> {
    await this.connection.script(LOCK_HOLDER, [this.prefix, name, token, ttl]);
  }
}

/** The event bus on Redis pub/sub: channel `ev:<channel>`, messages as JSON, subscriptions on their own connection. */
export class RedisEvents implements EventBus {
  constructor(
    private readonly connection: RedisConnection,
    private readonly prefix: string,
  ) {}

  async publish(channel: string, message: unknown): Promise<void> {
    await this.connection.run((c) => c.publish(eventChannelKey(this.prefix, channel), JSON.stringify(message ?? null)));
  }

  async subscribe(channel: string, handler: (message: unknown) => void): Promise<() => Promise<void>> {
    const subscriber = this.connection.subscriber();
    const name = eventChannelKey(this.prefix, channel);
    const listener = (raw: string): void => {
      let message: unknown;
      try {
        message = JSON.parse(raw);
      } catch {
        return;
      }
      try {
        handler(message);
      } catch {
        // A subscriber's failure is its own; the publisher and other subscribers go on.
      }
    };
    await this.connection.run(() => subscriber.subscribe(name, listener));
    return () => this.connection.run(() => subscriber.unsubscribe(name, listener));
  }
}

export class RedisSettings implements Settings {
  constructor(
    private readonly connection: RedisConnection,
    private readonly prefix: string,
  ) {}

  async get(name: string): Promise<string | null> {
    const value: unknown = await this.connection.run((c) => c.hGet(`${this.prefix}settings`, name));
    return value === null || value === undefined ? null : asText(value);
  }

  async set(name: string, value: string): Promise<void> {
    await this.connection.run((c) => c.hSet(`${this.prefix}settings`, name, value));
  }

  async setIfAbsent(name: string, value: string): Promise<string> {
    return asText(await this.connection.script(SET_IF_ABSENT, [this.prefix, name, value]));
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- connect-redis's own callback type
type Callback = (err?: unknown, data?: any) => void;

export interface RedisSessionOptions {
  /** A session ends this long after its last use (a Redis TTL). */
  ttlMs: number;
  /** Sessions kept at most (MAX_SESSIONS); past it the least recently used one ends. */
  maxSessions: number;
  /** The process clock: the order of last use. */
  clock: Clock;
}

/**
 * Login sessions through connect-redis (`sess:<sid>`, a Redis TTL of the session lifetime from
 * each save or touch, so a session ends without a sweep), bounded as on the embedded store: a
 * sorted set `sessions` of the ids by last use, the ids of each holder by last use beside it, and
 * past MAX_SESSIONS the least recently used session of the biggest holder ends. Its errors while Redis is away become ServiceUnavailableErrors, so
 * express-session answers a 503 rather than a 500.
 */
export class RedisSessionStore extends ConnectRedisStore {
  readonly #connection: RedisConnection;
  readonly #prefix: string;
  readonly #options: RedisSessionOptions;

  constructor(connection: RedisConnection, prefix: string, options: RedisSessionOptions) {
    super({
      client: connection.client,
      prefix: `${prefix}sess:`,
      ttl: () => Math.max(1, Math.ceil(options.ttlMs / 1000)),
    });
    this.#connection = connection;
    this.#prefix = prefix;
    this.#options = options;
  }

  override get(sid: string, cb?: Callback): Promise<unknown> {
    return super.get(sid, this.#mapped(cb));
  }

  override async set(sid: string, session: SessionData, cb?: Callback): Promise<unknown> {
    return this.#then(super.set(sid, session), () => this.#indexed(sid, 'set', sessionHolder(session)), cb);
  }

  override async destroy(sid: string, cb?: Callback): Promise<unknown> {
    return this.#then(super.destroy(sid), () => this.#indexed(sid, 'end', ''), cb);
  }

  override async touch(sid: string, session: SessionData, cb?: Callback): Promise<unknown> {
    return this.#then(super.touch(sid, session), () => this.#indexed(sid, 'touch', ''), cb);
  }

  /** Every live session by id, as the embedded store answers (connect-redis answers a list). */
  override all(cb?: Callback): Promise<unknown> {
    return super.all(
      this.#mapped(
        cb &&
          ((err, sessions?: (SessionData & { id?: string })[] | null) => {
            if (err || !sessions) {
              cb(err, sessions);
              return;
            }
            cb(null, Object.fromEntries(sessions.map(({ id, ...session }) => [id, session])));
          }),
      ),
    );
  }

  #mapped(cb: Callback | undefined): Callback | undefined {
    return cb && ((err, data) => cb(err ? this.#connection.unavailable(err) : err, data));
  }

  /** connect-redis's operation, then the index's, then the callback (with the first error, as a 503). */
  async #then(operation: Promise<unknown>, after: () => Promise<unknown>, cb?: Callback): Promise<void> {
    try {
      await operation;
      await after();
    } catch (error) {
      if (cb) {
        cb(this.#connection.unavailable(error));
        return;
      }
      throw this.#connection.unavailable(error);
    }
    cb?.();
  }

  /** Tells the index of the sessions (lua/session-used.lua) that one was saved, used or ended. */
  async #indexed(sid: string, what: 'set' | 'touch' | 'end', holder: string): Promise<void> {
    const { maxSessions, ttlMs, clock } = this.#options;
    const bound = Number.isFinite(maxSessions) ? String(maxSessions) : '';
    await this.#connection.script(SESSION_USED, [
      this.#prefix,
      sid,
      String(clock.now().getTime()),
      String(ttlMs),
      bound,
      what,
      holder,
    ]);
  }
}
