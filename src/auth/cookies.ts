import type { CookieOptions } from 'express';

/** What decides how the sandbox's cookies are made: whether browsers reach it over https (Config.secureCookies). */
export interface CookieConfig {
  readonly secureCookies: boolean;
}

const SESSION_COOKIE_BASE = 'water_sandbox_session';
const CSRF_COOKIE_BASE = 'water_sandbox_csrf';

/**
 * A cookie's name. Behind https it carries the __Host- prefix: a browser then accepts it only
 * with Secure, Path=/ and no Domain, so no other host (a sibling subdomain, a plain-http
 * responder on the network) can set or shadow it. Plain http (a local sandbox) cannot hold such
 * a cookie, so the name is plain there.
 */
const named = (base: string, config: CookieConfig): string => (config.secureCookies ? `__Host-${base}` : base);

export const sessionCookieName = (config: CookieConfig): string => named(SESSION_COOKIE_BASE, config);
export const csrfCookieName = (config: CookieConfig): string => named(CSRF_COOKIE_BASE, config);

/**
 * The attributes of every cookie the sandbox sets: HttpOnly (no script reads it), SameSite=Lax
 * (not Strict: the top-level navigation from a partner's site to /login must carry the session,
 * so a signed-in browser skips the form), Path=/ and no Domain (what __Host- requires), and
 * Secure behind https.
 */
export const cookieOptions = (
  config: CookieConfig,
): CookieOptions & { httpOnly: true; sameSite: 'lax'; path: '/' } => ({
  httpOnly: true,
  sameSite: 'lax',
  secure: config.secureCookies,
  path: '/',
});
