import { AppError, OAuthError, rateLimited } from '../core/errors.js';
import { networkOfAddressKey } from '../http/client-address.js';
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

/** An attempt that was counted before it was checked: `takeBack` takes its count back (it succeeded, or was not what the limit counts). */
export interface CountedAttempt {
  takeBack(): Promise<void>;
}

/**
 * Counts an attempt on each key before the caller checks it, atomically in the store (one
 * count across replicas), and refuses it at the first key past its limit. So at any moment a
 * key's count is its failures plus the attempts being checked (plus refused ones about to take
 * theirs back): parallel attempts, on any number of replicas, never check more than the limit
 * between them; under such a burst some may be refused a little early. A refused attempt and one
 * that succeeds take their counts back; only failures stay. (Not a reset on success: a
 * partner's own right password would then wipe the count of guesses made from the same address.)
 * The keys are counted one after the other, so an attempt refused by the first (the address)
 * never touches the next (the account).
 */
async function countFirst(
  deps: UsersDeps,
  keys: readonly { key: string; limit: number }[],
  refuse: (over: number) => Error,
): Promise<CountedAttempt> {
  const counted: string[] = [];
  const takeBack = async (): Promise<void> => {
    await Promise.all(counted.map((key) => deps.store.counters.decrement(key)));
  };
  for (const [i, { key, limit }] of keys.entries()) {
    const count = await deps.store.counters.increment(key, LOGIN_WINDOW_MS);
    counted.push(key);
    if (count > limit) {
      await takeBack();
      throw refuse(i);
    }
  }
  return { takeBack };
}

/** What the sign-in limits need: SIGN_IN_LIMIT beside the store and the clock. */
export interface LoginThrottleDeps extends UsersDeps {
  config: { readonly limits: { readonly signInsPerMinute: number } };
}

/**
 * Limits sign-ins per client address (SIGN_IN_LIMIT a minute, whether they succeed or not: each
 * successful one makes a login session), and failed sign-ins per client address and per account,
 * in fixed windows of the process clock. Of the failures only those stay counted in the end, and
 * a limit lasts until its window ends, so a partner guessing passwords for the shared demo user
 * blocks it for everyone for at most LOGIN_WINDOW_MS. No limit counts sign-ins per user: the
 * demo user, whose password every partner has, stays usable by each while another floods it.
 */
export function createLoginThrottle(deps: LoginThrottleDeps): {
  /** Counts a sign-in attempt; throws a 429 (with Retry-After) when the address or the e-mail's account is over its limit. */
  begin(address: string, email: string): Promise<CountedAttempt>;
} {
  return {
    async begin(address, email) {
      const { index, retryAfter } = currentWindow(deps);
      // An IPv6 client is counted by its /64 and by its /48: a site's 65,536 /64s are not 65,536 limits.
      const limit = deps.config.limits.signInsPerMinute;
      const network = networkOfAddressKey(address);
      for (const [key, from] of [
        [address, 'this address'],
        ...(network === null ? [] : [[network, 'this network (an IPv6 /48)']]),
      ] as const) {
        if (limit > 0 && (await deps.store.counters.increment(`sign-in:${key}:${index}`, LOGIN_WINDOW_MS)) > limit)
          throw rateLimited(
            'SIGN_IN_LIMIT',
            `Too many sign-ins from ${from}: this sandbox allows ${limit} a minute (SIGN_IN_LIMIT=${limit}); try again in ${retryAfter} s`,
            retryAfter,
          );
      }
      const owner = await deps.store.accounts.lookup('email', email.toLowerCase());
      const keys = [{ key: `login-fail:address:${address}:${index}`, limit: FAILED_LOGINS_PER_ADDRESS }];
      if (owner !== null) keys.push({ key: `login-fail:account:${owner}:${index}`, limit: FAILED_LOGINS_PER_ACCOUNT });
      return countFirst(
        deps,
        keys,
        (over) =>
          new AppError(
            429,
            'too_many_failed_logins',
            `Too many failed sign-ins ${over === 0 ? 'from this address' : 'for this account'}; try again in ${retryAfter} s`,
            {
              headers: { 'Retry-After': String(retryAfter) },
            },
          ),
      );
    },
  };
}

/**
 * Limits failed token requests (wrong client secret, unknown or spent code or refresh token)
 * per client address, answered like the rest of the token endpoint in RFC 6749 form.
 */
export function createTokenThrottle(deps: UsersDeps): { begin(address: string): Promise<CountedAttempt> } {
  return {
    begin(address) {
      const { index, retryAfter } = currentWindow(deps);
      return countFirst(
        deps,
        [{ key: `token-fail:${address}:${index}`, limit: FAILED_TOKEN_REQUESTS_PER_ADDRESS }],
        () =>
          new OAuthError(
            429,
            'temporarily_unavailable',
            `Too many failed token requests from this address; try again in ${retryAfter} s`,
            {
              headers: { 'Retry-After': String(retryAfter) },
            },
          ),
      );
    },
  };
}
