import type { Request } from 'express';

import { AppError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { clientAddressKey, clientNetworkKey } from '../http/client-address.js';
import type { DeepReadonly, UserRecord } from '../store/data.js';
import type { CookieConfig } from './cookies.js';
import { sessionCall } from './session.js';
import { createLoginThrottle, type LoginThrottleDeps } from './throttle.js';
import { createPasswordCheck, type UsersDeps } from './users.js';

/** What a sign-in form submission comes to: the user, or the form again with this status and message. */
export type SignInOutcome =
  | { ok: true; user: DeepReadonly<UserRecord> }
  | { ok: false; status: 422 | 429; email: string; error: string; headers: Readonly<Record<string, string>> };

/**
 * The sign-in of a form (the authorization host's /login and the dashboard's): checks the
 * fields, counts the attempt against the failed-login limits, checks the password, and takes
 * the count back when it was right. 422 for a refused submission, as form frameworks answer it:
 * the page is the form again, and scripts can tell.
 */
export function createSignIn(
  deps: LoginThrottleDeps,
): (address: string, rawEmail: string | undefined, password: string | undefined) => Promise<SignInOutcome> {
  const checkPassword = createPasswordCheck(deps);
  const throttle = createLoginThrottle(deps);
  return async (address, rawEmail, password = '') => {
    const email = rawEmail?.trim() ?? '';
    if (email === '' || password === '')
      return { ok: false, status: 422, email, error: 'Enter your e-mail address and your password.', headers: {} };
    let attempt;
    try {
      attempt = await throttle.begin(address, email);
    } catch (error) {
      if (!(error instanceof AppError) || error.status !== 429) throw error;
      return { ok: false, status: 429, email, error: error.message, headers: error.headers ?? {} };
    }
    const user = await checkPassword(email, password);
    if (!user)
      return {
        ok: false,
        status: 422,
        email,
        error: 'The e-mail address or the password is not correct.',
        headers: {},
      };
    await attempt.takeBack();
    return { ok: true, user };
  };
}

export interface UserSessionDeps {
  config: CookieConfig;
  logger: Logger;
  ids: UsersDeps['ids'];
}

const warnedInsecure = new WeakSet<Logger>();

/**
 * Makes the request's login session the user's, under a new session id (so an id planted before
 * sign-in is worth nothing), with its own CSRF secret.
 */
export async function startUserSession(
  deps: UserSessionDeps,
  req: Request,
  user: DeepReadonly<UserRecord>,
): Promise<void> {
  await sessionCall((done) => req.session.regenerate(done));
  req.session.holder = clientNetworkKey(req) ?? clientAddressKey(req);
  req.session.userId = user.userId;
  req.session.accountId = user.accountId;
  req.session.csrfToken = deps.ids.secret(24);
  await sessionCall((done) => req.session.save(done));
  // express-session sends a Secure cookie only on a request that came over https (or from a
  // trusted proxy saying X-Forwarded-Proto: https); otherwise the browser stays signed out.
  if (deps.config.secureCookies && !req.secure && !warnedInsecure.has(deps.logger)) {
    warnedInsecure.add(deps.logger);
    deps.logger.warn(
      'a sign-in came over plain http while the sandbox is reached over https (PUBLIC_URL or TLS): its session cookie is Secure, so it was not sent; the proxy in front must send X-Forwarded-Proto: https',
      {
        address: req.ip,
      },
    );
  }
}
