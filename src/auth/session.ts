import { parse as parseCookies } from 'cookie';
import type { Request, RequestHandler, Response } from 'express';
import session from 'express-session';

import type { Store } from '../store/store.js';
import { cookieOptions, sessionCookieName, type CookieConfig } from './cookies.js';

declare module 'express-session' {
  interface SessionData {
    /** The signed-in user of the authorization host, and their account. */
    userId: string;
    accountId: string;
    /** The session's CSRF secret, made at sign-in: the forms of a signed-in browser are signed with it (see csrf.ts). */
    csrfToken: string;
    /**
     * Who the session counts for when the store holds MAX_SESSIONS: the network it was signed in
     * from (an IPv4 address, an IPv6 /48). Past the bound the store ends the biggest holder's
     * least recently used session, so a flood of sign-ins ends its own sessions, not others'.
     */
    holder: string;
  }
}

/** A login session lasts a day after its last use, like a hosted login that remembers the browser. */
export const SESSION_TTL_MS = 24 * 60 * 60 * 1000;

export interface SessionDeps {
  store: Store;
  /** Signs the session cookies; kept in the store's settings so sessions survive restarts and work on every replica. */
  sessionSecret: string;
  config: CookieConfig;
}

const middlewares = new WeakMap<Store, RequestHandler>();

/**
 * The login session of the authorization host and the dashboard: one middleware per store, so
 * both share it. Sessions live in the store (one small file each, or Redis through
 * connect-redis), never in express-session's MemoryStore. Only a sign-in makes one
 * (startUserSession): a visitor who has not signed in is given no session, stored or sent, so
 * visitors cost nothing (the forms' CSRF protection needs none, see csrf.ts).
 */
export function loginSession(deps: SessionDeps): RequestHandler {
  let middleware = middlewares.get(deps.store);
  if (!middleware) {
    middleware = session({
      name: sessionCookieName(deps.config),
      secret: deps.sessionSecret,
      store: deps.store.sessions,
      resave: false,
      saveUninitialized: false,
      unset: 'destroy',
      cookie: { ...cookieOptions(deps.config), maxAge: SESSION_TTL_MS },
    });
    middlewares.set(deps.store, middleware);
  }
  return middleware;
}

export const sessionCall = (fn: (done: (err?: unknown) => void) => void): Promise<void> =>
  new Promise((resolve, reject) =>
    fn((err) =>
      err ? reject(err instanceof Error ? err : new Error(`session store: ${JSON.stringify(err)}`)) : resolve(),
    ),
  );

/**
 * Ends the browser's login session: removed from the store, and its cookie cleared (when the
 * browser sent one: a visitor is sent no cookie). The one way both hosts sign a browser out.
 */
export async function endSession(deps: { config: CookieConfig }, req: Request, res: Response): Promise<void> {
  await sessionCall((done) => req.session.destroy(done));
  const name = sessionCookieName(deps.config);
  if (req.headers.cookie !== undefined && parseCookies(req.headers.cookie)[name] !== undefined)
    res.clearCookie(name, cookieOptions(deps.config));
}
