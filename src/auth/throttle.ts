import { AppError, OAuthError } from '../core/errors.js';
import type { UsersDeps } from './users.js';

/** Failures counted per window; past a limit, the caller waits for the next window. */
export const LOGIN_WINDOW_MS = 60_000;
export const FAILED_LOGINS_PER_ADDRESS = 10;
export const FAILED_LOGINS_PER_ACCOUNT = 20;
export const FAILED_TOKEN_REQUESTS_PER_ADDRESS = 30;

function currentWindow(deps: UsersDeps): { index: number; retryAfter: number } {
  const nowMs = deps.clock.now().getTime();
  const index = Math.floor(nowMs / LOGIN_WINDOW_MS);
  return { index, retryAfter: Math.max(1, Math.ceil(((index + 1) * LOGIN_WINDOW_MS - nowMs) / 1000)) };
}

/**
 * Limits failed sign-ins per client address and per account, in fixed windows of the process
 * clock. Only failures count, and a limit lasts until its window ends, so a partner guessing
 * passwords for the shared demo user blocks it for everyone for at most LOGIN_WINDOW_MS.
 */
export function createLoginThrottle(deps: UsersDeps): {
  /** Throws a 429 (with Retry-After) when the address or the e-mail's account is over its limit. */
  check(address: string, email: string): Promise<void>;
  recordFailure(address: string, email: string): Promise<void>;
} {
  const accountKey = async (email: string, index: number): Promise<string | null> => {
    const owner = await deps.store.accounts.lookup('email', email.toLowerCase());
    return owner === null ? null : `login-fail:account:${owner}:${index}`;
  };
  return {
    async check(address, email) {
      const { index, retryAfter } = currentWindow(deps);
      const byAccount = await accountKey(email, index);
      const [fromAddress, forAccount] = await Promise.all([
        deps.store.counters.get(`login-fail:address:${address}:${index}`),
        byAccount === null ? 0 : deps.store.counters.get(byAccount),
      ]);
      if (fromAddress >= FAILED_LOGINS_PER_ADDRESS || forAccount >= FAILED_LOGINS_PER_ACCOUNT) {
        throw new AppError(429, 'too_many_failed_logins', `Too many failed sign-ins ${fromAddress >= FAILED_LOGINS_PER_ADDRESS ? 'from this address' : 'for this account'}; try again in ${retryAfter} s`, {
          headers: { 'Retry-After': String(retryAfter) },
        });
      }
    },
    async recordFailure(address, email) {
      const { index } = currentWindow(deps);
      const byAccount = await accountKey(email, index);
      await Promise.all([
        deps.store.counters.increment(`login-fail:address:${address}:${index}`, LOGIN_WINDOW_MS),
        byAccount === null ? null : deps.store.counters.increment(byAccount, LOGIN_WINDOW_MS),
      ]);
    },
  };
}

/**
 * Limits failed token requests (wrong client secret, unknown or spent code or refresh token)
 * per client address, answered like the rest of the token endpoint in RFC 6749 form.
 */
export function createTokenThrottle(deps: UsersDeps): { check(address: string): Promise<void>; recordFailure(address: string): Promise<void> } {
  return {
    async check(address) {
      const { index, retryAfter } = currentWindow(deps);
      if ((await deps.store.counters.get(`token-fail:${address}:${index}`)) < FAILED_TOKEN_REQUESTS_PER_ADDRESS) return;
      throw new OAuthError(429, 'temporarily_unavailable', `Too many failed token requests from this address; try again in ${retryAfter} s`, {
        headers: { 'Retry-After': String(retryAfter) },
      });
    },
    async recordFailure(address) {
      await deps.store.counters.increment(`token-fail:${address}:${currentWindow(deps).index}`, LOGIN_WINDOW_MS);
    },
  };
}
