import { createHmac } from 'node:crypto';

import { parse as parseCookies } from 'cookie';
import type { Request, Response } from 'express';

import type { Ids } from '../core/ids.js';
import { secretsEqual } from './clients.js';
import { cookieOptions, csrfCookieName, type CookieConfig } from './cookies.js';

export interface CsrfDeps {
  ids: Ids;
  /** The store's cookie-signing secret: the key of the tokens, the same on every replica. */
  sessionSecret: string;
  config: CookieConfig;
}

/** A browser's CSRF secret in its cookie: what ids.secret makes, and nothing else is taken for one. */
const COOKIE_SECRET = /^[\w-]{24,64}$/;

/**
 * The CSRF protection of every form of the sandbox (the two sign-in forms, the consent page,
 * the dashboard's sign-out and its token renewal), without storing anything for a visitor.
 *
 * A form's token is HMAC-SHA256(the store's cookie-signing secret, purpose + a secret of this
 * browser). The browser's secret is its signed-in session's (made at sign-in and kept in the
 * session) or, before sign-in, a random value in an HttpOnly cookie of its own (a "signed
 * double-submit cookie"). Why it is safe: another site can make the browser send the cookie
 * but cannot read it (HttpOnly, and the same-origin policy keeps the page's token from it), and
 * without the signing secret it cannot compute the token that goes with a cookie, not even with
 * one it planted itself (and behind https the __Host- prefix keeps other hosts from planting
 * one). The purpose binds a token to its form: a sign-in token does not answer a consent page,
 * and a consent token names its client and redirect URI, so it allows nothing else.
 */
export interface Csrf {
  /** The token of a `purpose` form for this browser; gives a browser without a session its CSRF cookie when it has none. */
  token(req: Request, res: Response, purpose: string): string;
  /** Whether `given` is the token of a `purpose` form shown to this browser (under its session, or before it). */
  valid(req: Request, purpose: string, given: string | undefined): boolean;
}

export function createCsrf(deps: CsrfDeps): Csrf {
  const cookieName = csrfCookieName(deps.config);
  const sign = (source: 'session' | 'cookie', browserSecret: string, purpose: string): string =>
    createHmac('sha256', deps.sessionSecret)
      .update(`csrf\n${source}\n${browserSecret}\n${purpose}`)
      .digest('base64url');
  const sessionSecret = (req: Request): string | undefined => {
    // Undefined on a route without the session middleware (its type says otherwise).
    const session = req.session as Request['session'] | undefined;
    return session?.userId === undefined ? undefined : session.csrfToken;
  };
  const cookieSecret = (req: Request): string | undefined => {
    const header = req.headers.cookie;
    const value = header === undefined ? undefined : parseCookies(header)[cookieName];
    return value !== undefined && COOKIE_SECRET.test(value) ? value : undefined;
  };

  return {
    token(req, res, purpose) {
      const ofSession = sessionSecret(req);
      if (ofSession !== undefined) return sign('session', ofSession, purpose);
      let ofCookie = cookieSecret(req);
      if (ofCookie === undefined) {
        ofCookie = deps.ids.secret(24);
        // A cookie for the browser's session (no Max-Age): a form outlives no browser restart anyway.
        res.cookie(cookieName, ofCookie, cookieOptions(deps.config));
      }
      return sign('cookie', ofCookie, purpose);
    },
    valid(req, purpose, given) {
      if (given === undefined || given === '') return false;
      // The form may be older than the session: a sign-in in another tab does not spoil it.
      const ofSession = sessionSecret(req);
      const ofCookie = cookieSecret(req);
      return (
        (ofSession !== undefined && secretsEqual(given, sign('session', ofSession, purpose))) ||
        (ofCookie !== undefined && secretsEqual(given, sign('cookie', ofCookie, purpose)))
      );
    },
  };
}
