import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';

import { createClient, ErrorReply } from 'redis';

import { ServiceUnavailableError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { StoreHealth } from '../store.js';
import type { LuaScript } from './lua.js';
import { describeRedisUrl } from './url.js';

export type RedisClient = ReturnType<typeof createClient>;

/**
 * A command waits this long for a connection before it fails: a blip of Redis is ridden out, and
 * once Redis has been away longer than this, commands fail at once, so a request answers 503
 * promptly. The wait is ours (run() waits for 'ready'), not node-redis's per-command timeout,
 * which costs an AbortSignal with a timer on every command.
 */
const COMMAND_WAIT_MS = 2000;
/** While Redis stays unreachable, the reason is logged again this often (and at each change). */
const REPEAT_WARNING_MS = 30_000;
const HEALTH_PING_MS = 1000;
const TRANSIENT_REPLY = /^(LOADING|BUSY|MASTERDOWN|TRYAGAIN|READONLY|NOREPLICAS)\b/;

/** Reconnection: 50 ms, doubling, at most 2 s apart, with jitter so replicas do not retry in step. */
export const reconnectDelayMs = (retries: number): number =>
  Math.min(50 * 2 ** Math.min(retries, 6), 2000) * (0.8 + Math.random() * 0.4);

/**
 * One connection to Redis for commands (node-redis pipelines concurrent commands on it), and a
 * second one made on first use for subscriptions, which Redis dedicates to them. Connecting
 * starts at once and never gives up: a replica started before Redis, or one whose Redis
 * restarts, waits and says why (a log line, and health() with the reason) instead of exiting.
 */
export class RedisConnection {
  readonly client: RedisClient;
  readonly where: string;
  #subscriber: RedisClient | null = null;
  #reason: string;
  #downSinceMs: number | null = null;
  #warnedAtMs = 0;
  #closed = false;
  readonly #openedAtMs = performance.now();
  /** Commands waiting for the connection (see #ready): called with nothing when it is ready, with the error when they give up. */
  readonly #waiters = new Set<(error?: Error) => void>();
  readonly #shas = new Map<string, string>();
  readonly #logger: Logger | undefined;

  constructor(url: string, logger?: Logger) {
    this.where = describeRedisUrl(url);
    this.#logger = logger;
    this.#reason = `connecting to Redis at ${this.where}`;
    this.client = createClient({
      url,
      socket: { reconnectStrategy: reconnectDelayMs, connectTimeout: 5000 },
      disableOfflineQueue: true,
      commandOptions: { timeout: 0 },
    });
    this.client.on('error', (error: unknown) => this.#onError(error));
    this.client.on('ready', () => this.#onReady());
    // Never rejects while reconnecting; it settles when connected, or when closed first.
    this.client.connect().catch(() => undefined);
  }

  /** The connection for subscriptions, made on first use. */
  subscriber(): RedisClient {
    if (!this.#subscriber) {
      // Subscriptions made while it connects wait for it (and node-redis renews them after a reconnect).
      const subscriber = this.client.duplicate({ disableOfflineQueue: false });
      subscriber.on('error', () => undefined); // the command connection reports the same outage
      subscriber.connect().catch(() => undefined);
      this.#subscriber = subscriber;
    }
    return this.#subscriber;
  }

  /** Runs commands; a lost connection becomes a ServiceUnavailableError (a 503 for a request). */
  async run<T>(commands: (client: RedisClient) => Promise<T>): Promise<T> {
    if (!this.client.isReady) await this.#ready();
    try {
      return await commands(this.client);
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  /** Runs a script by its SHA1, sending its source only when Redis does not have it yet (after a restart). */
  script(script: LuaScript, args: readonly string[]): Promise<unknown> {
    return this.run(async (client) => {
      let sha = this.#shas.get(script.name);
      if (sha === undefined) {
        sha = createHash('sha1').update(script.source).digest('hex');
        this.#shas.set(script.name, sha);
      }
      try {
        return await client.sendCommand(['EVALSHA', sha, '0', ...args]);
      } catch (error) {
        if (!(error instanceof ErrorReply) || !error.message.startsWith('NOSCRIPT')) throw error;
        return client.sendCommand(['EVAL', script.source, '0', ...args]);
      }
    });
  }

  /**
   * An error reply of Redis is a bug and passes unchanged, except those saying Redis cannot serve
   * for now (loading its AOF after a restart, a busy script, a read-only replica after a
   * failover); those, and anything else (no connection), become a ServiceUnavailableError.
   */
  unavailable(error: unknown): Error {
    if (error instanceof ServiceUnavailableError) return error;
    if (error instanceof ErrorReply && !TRANSIENT_REPLY.test(error.message)) return error;
    const reason = this.client.isReady ? (error as Error).message : this.#reason;
    return new ServiceUnavailableError(`The sandbox cannot reach its Redis now (${reason}); try again in a moment`, {
      cause: error,
    });
  }

  async health(): Promise<StoreHealth> {
    if (this.#closed) return { ok: false, reason: 'the store is closed' };
    if (!this.client.isReady) return { ok: false, reason: this.#reason };
    // A timer of our own: node-redis's command timeout stops counting once the command is sent.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer to PING within ${HEALTH_PING_MS} ms`)), HEALTH_PING_MS);
    });
    try {
      await Promise.race([this.client.ping(), late]);
      return { ok: true };
    } catch (error) {
      return { ok: false, reason: `Redis at ${this.where} does not answer: ${(error as Error).message}` };
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    // Commands still waiting for Redis fail now, instead of holding the process until their wait ends.
    const closed = new ServiceUnavailableError('The sandbox is stopping: its store is closed; try again in a moment');
    for (const waiter of this.#waiters) waiter(closed);
    this.#waiters.clear();
    const clients = [this.client, this.#subscriber].filter((c): c is RedisClient => c !== null);
    await Promise.all(
      clients.map(async (c) => {
        if (!c.isOpen) return;
        // Orderly when connected (pending replies arrive first); at once when Redis is away.
        if (c.isReady) await c.close().catch(() => c.destroy());
        else c.destroy();
      }),
    );
  }

  /** Resolves when the connection is ready, or throws the 503 once Redis has been away COMMAND_WAIT_MS. */
  #ready(): Promise<void> {
    const sinceMs = this.#downSinceMs ?? this.#openedAtMs;
    const leftMs = COMMAND_WAIT_MS - (performance.now() - sinceMs);
    if (this.#closed || leftMs <= 0) return Promise.reject(this.unavailable(new Error(this.#reason)));
    return new Promise((resolve, reject) => {
      const waiter = (error?: Error): void => {
        clearTimeout(timer);
        if (error) reject(error);
        else resolve();
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(this.unavailable(new Error(this.#reason)));
      }, leftMs);
      this.#waiters.add(waiter);
    });
  }

  #onError(error: unknown): void {
    if (this.#closed) return;
    const message = (error as Error).message || String(error);
    const reason = `Redis at ${this.where} is unreachable: ${message}`;
    const nowMs = performance.now();
    const changed = reason !== this.#reason;
    this.#reason = reason;
    this.#downSinceMs ??= nowMs;
    if (changed || nowMs - this.#warnedAtMs >= REPEAT_WARNING_MS) {
      this.#warnedAtMs = nowMs;
      this.#logger?.warn('Redis is unreachable; retrying', {
        redis: this.where,
        reason: message,
        downForSeconds: Math.round((nowMs - this.#downSinceMs) / 1000),
      });
    }
  }

  #onReady(): void {
    if (this.#downSinceMs !== null) {
      this.#logger?.info('Redis is reachable again', {
        redis: this.where,
        downForSeconds: Math.round((performance.now() - this.#downSinceMs) / 1000),
      });
    }
    this.#downSinceMs = null;
    this.#warnedAtMs = 0;
    this.#reason = `Redis at ${this.where} is reachable`;
    for (const waiter of this.#waiters) waiter();
    this.#waiters.clear();
  }
}
