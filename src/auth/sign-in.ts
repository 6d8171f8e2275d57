import type { Request } from 'express';

import { AppError } from '../core/errors.js';
import type { DeepReadonly, UserRecord } from '../store/data.js';
import { sessionCall } from './session.js';
import { createLoginThrottle } from './throttle.js';
import { createPasswordCheck, type UsersDeps } from './users.js';

/** What a sign-in form submission comes to: the user, or the form again with this status and message. */
export type SignInOutcome =
  | { ok: true; user: DeepReadonly<UserRecord> }
  | { ok: false; status: 422 | 429; email: string; error: string; headers: Readonly<Record<string, string>> };

/**
 * The sign-in of a form (the authorization host's /login and the dashboard's): checks the
 * fields, the failed-login limits and the password, and counts a failure. 422 for a refused
 * submission, as form frameworks answer it: the page is the form again, and scripts can tell.
 */
export function createSignIn(deps: UsersDeps): (address: string, rawEmail: string | undefined, password: string | undefined) => Promise<SignInOutcome> {
  const checkPassword = createPasswordCheck(deps);
  const throttle = createLoginThrottle(deps);
  return async (address, rawEmail, password = '') => {
    const email = rawEmail?.trim() ?? '';
    if (email === '' || password === '') return { ok: false, status: 422, email, error: 'Enter your e-mail address and your password.', headers: {} };
    try {
      await throttle.check(address, email);
    } catch (error) {
      if (!(error instanceof AppError) || error.status !== 429) throw error;
      return { ok: false, status: 429, email, error: error.message, headers: error.headers ?? {} };
    }
    const user = await checkPassword(email, password);
    if (user) return { ok: true, user };
    await throttle.recordFailure(address, email);
    return { ok: false, status: 422, email, error: 'The e-mail address or the password is not correct.', headers: {} };
  };
}

/** Makes the request's login session the user's, under a new session id (so an id planted before sign-in is worth nothing). */
export async function startUserSession(req: Request, user: DeepReadonly<UserRecord>, csrfToken: string): Promise<void> {
  await sessionCall((done) => req.session.regenerate(done));
  req.session.userId = user.userId;
  req.session.accountId = user.accountId;
  req.session.csrfToken = csrfToken;
  await sessionCall((done) => req.session.save(done));
}
