import type { RequestHandler } from 'express';
import session, { type SessionData } from 'express-session';

import type { Deps } from '../deps.js';
import type { Data } from '../store/data.js';

declare module 'express-session' {
  interface SessionData {
    /** The signed-in user of the authorization host. */
    userId: string;
    /** The token the login form must send back (CSRF protection). */
    csrfToken: string;
  }
}

export const SESSION_COOKIE = 'water_sandbox_session';
/** A login session lasts a day, like a hosted login that remembers the browser. */
export const SESSION_TTL_MS = 24 * 60 * 60 * 1000;

/** Drops sessions that expired on the process clock. */
export function pruneSessions(data: Data, nowMs: number): void {
  data.sessions = data.sessions.filter((s) => Date.parse(s.expiresAt) > nowMs);
}

/**
 * express-session's store over our Store, so sessions survive restarts and nothing uses the
 * MemoryStore. Session expiry runs on the process clock: a login session belongs to a browser,
 * not to an account.
 */
export class SandboxSessionStore extends session.Store {
  /** `secret` signs the cookies; it is written back with each session, as a global reset empties it. */
  constructor(
    private readonly deps: Pick<Deps, 'store' | 'clock' | 'logger'>,
    private readonly secret: string,
  ) {
    super();
  }

  override get(sid: string, callback: (err: unknown, session?: SessionData | null) => void): void {
    const nowMs = this.deps.clock.now().getTime();
    const record = this.deps.store.read((d) => d.sessions.find((s) => s.sid === sid));
    if (!record || Date.parse(record.expiresAt) <= nowMs) {
      callback(null, null);
      return;
    }
    callback(null, structuredClone(record.session) as unknown as SessionData);
  }

  override set(sid: string, data: SessionData, callback?: (err?: unknown) => void): void {
    const nowMs = this.deps.clock.now().getTime();
    const stored = JSON.parse(JSON.stringify(data)) as Record<string, unknown>;
    this.#finish(
      this.deps.store.write((d) => {
        d.sessionSecret ??= this.secret;
        pruneSessions(d, nowMs);
        const expiresAt = new Date(nowMs + SESSION_TTL_MS).toISOString();
        const existing = d.sessions.find((s) => s.sid === sid);
        if (existing) {
          existing.session = stored;
          existing.expiresAt = expiresAt;
        } else {
          d.sessions.push({ sid, session: stored, expiresAt });
        }
      }),
      callback,
    );
  }

  override destroy(sid: string, callback?: (err?: unknown) => void): void {
    this.#finish(
      this.deps.store.write((d) => {
        d.sessions = d.sessions.filter((s) => s.sid !== sid);
      }),
      callback,
    );
  }

  override touch(sid: string, _data: SessionData, callback?: () => void): void {
    const nowMs = this.deps.clock.now().getTime();
    this.#finish(
      this.deps.store.write(
        (d) => {
          const existing = d.sessions.find((s) => s.sid === sid);
          if (existing) existing.expiresAt = new Date(nowMs + SESSION_TTL_MS).toISOString();
        },
        { durable: false },
      ),
      callback,
    );
  }

  #finish(done: Promise<unknown>, callback?: (err?: unknown) => void): void {
    done.then(
      () => callback?.(),
      (error: unknown) => {
        this.deps.logger.error('session store write failed', { err: error });
        callback?.(error);
      },
    );
  }
}

/** The secret that signs session cookies: kept in the store, made on first use. */
function sessionSecret(deps: Deps): string {
  const existing = deps.store.read((d) => d.sessionSecret);
  if (existing) return existing;
  const secret = deps.ids.secret(32);
  deps.store
    .write((d) => {
      d.sessionSecret ??= secret;
    })
    .catch((error: unknown) => deps.logger.error('storing the session secret failed', { err: error }));
  return secret;
}

const middlewares = new WeakMap<Deps, RequestHandler>();

/**
 * The login session of the authorization host (and of anything else signed in with the login
 * form, such as the dashboard): one middleware per Deps, so every user shares the store and secret.
 * The cookie is HttpOnly and SameSite=Lax (Lax, not Strict, so that the top-level navigation
 * from a partner's site to /login carries it and a signed-in browser skips the form); it is
 * Secure only when the sandbox itself serves TLS, so plain http on localhost works.
 */
export function loginSession(deps: Deps): RequestHandler {
  let middleware = middlewares.get(deps);
  if (!middleware) {
    const secret = sessionSecret(deps);
    middleware = session({
      name: SESSION_COOKIE,
      secret,
      store: new SandboxSessionStore(deps, secret),
      resave: false,
      saveUninitialized: false,
      unset: 'destroy',
      cookie: { httpOnly: true, sameSite: 'lax', secure: deps.config.tls.mode !== 'off', path: '/', maxAge: SESSION_TTL_MS },
    });
    middlewares.set(deps, middleware);
  }
  return middleware;
}
