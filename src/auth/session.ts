import type { RequestHandler } from 'express';
import session from 'express-session';

import type { Store } from '../store/store.js';

declare module 'express-session' {
  interface SessionData {
    /** The signed-in user of the authorization host, and their account. */
    userId: string;
    accountId: string;
    /** The token the login form must send back (CSRF protection). */
    csrfToken: string;
  }
}

export const SESSION_COOKIE = 'water_sandbox_session';
/** A login session lasts a day after its last use, like a hosted login that remembers the browser. */
export const SESSION_TTL_MS = 24 * 60 * 60 * 1000;

export interface SessionDeps {
  store: Store;
  /** Signs the session cookies; kept in the store's settings so sessions survive restarts and work on every replica. */
  sessionSecret: string;
  config: { readonly tls: { readonly mode: string } };
}

const middlewares = new WeakMap<Store, RequestHandler>();

/**
 * The login session of the authorization host (and of anything else signed in with the login
 * form, such as the dashboard): one middleware per store, so every user shares it. Sessions
 * live in the store (a lowdb document, or Redis through connect-redis), never in
 * express-session's MemoryStore. The cookie is HttpOnly and SameSite=Lax (Lax, not Strict, so
 * that the top-level navigation from a partner's site to /login carries it and a signed-in
 * browser skips the form); it is Secure only when the sandbox itself serves TLS, so plain
 * http on localhost works.
 */
export function loginSession(deps: SessionDeps): RequestHandler {
  let middleware = middlewares.get(deps.store);
  if (!middleware) {
    middleware = session({
      name: SESSION_COOKIE,
      secret: deps.sessionSecret,
      store: deps.store.sessions,
      resave: false,
      saveUninitialized: false,
      unset: 'destroy',
      cookie: { httpOnly: true, sameSite: 'lax', secure: deps.config.tls.mode !== 'off', path: '/', maxAge: SESSION_TTL_MS },
    });
    middlewares.set(deps.store, middleware);
  }
  return middleware;
}

export const sessionCall = (fn: (done: (err?: unknown) => void) => void): Promise<void> =>
  new Promise((resolve, reject) => fn((err) => (err ? reject(err instanceof Error ? err : new Error(`session store: ${JSON.stringify(err)}`)) : resolve())));
