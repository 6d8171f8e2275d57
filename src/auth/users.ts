import type { Clock } from '../core/clock.js';
import type { Ids } from '../core/ids.js';
import { hashPassword, verifyPassword } from '../core/passwords.js';
import type { DeepReadonly, UserRecord } from '../store/data.js';
import type { Store } from '../store/store.js';

export interface UsersDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
}

/** The user of a login session, if the session still names one that exists. */
export async function signedInUser(
  store: Store,
  session: { userId?: string; accountId?: string },
): Promise<DeepReadonly<UserRecord> | null> {
  if (session.userId === undefined || session.accountId === undefined) return null;
  const doc = await store.accounts.get(session.accountId);
  return doc?.users.find((u) => u.userId === session.userId) ?? null;
}

/**
 * Checks an e-mail and password: the user, or null. An unknown e-mail is checked against a
 * throwaway hash, so it takes as long as a wrong password and does not reveal which e-mails exist.
 */
export function createPasswordCheck(
  deps: UsersDeps,
): (email: string, password: string) => Promise<DeepReadonly<UserRecord> | null> {
  const unknownUserHash = hashPassword(deps.ids.secret(16));
  return async (email, password) => {
    const normalized = email.toLowerCase();
    const owner = await deps.store.accounts.findByKey('email', normalized);
    const user = owner?.doc.users.find((u) => u.email === normalized) ?? null;
    const valid = await verifyPassword(password, user?.passwordHash ?? unknownUserHash);
    return user && valid ? user : null;
  };
}
