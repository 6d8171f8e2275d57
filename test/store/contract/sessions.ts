import type { SessionData } from 'express-session';

import type { Store } from '../../../src/store/store.js';
import { eventually } from '../../helpers/waiting.js';
import type { ContractSuite } from './suite.js';

/** The login sessions (express-session's store API) and their lifetime. */
export function describeSessionsContract(suite: ContractSuite): void {
  const { store, clock, openStore, capabilities, onClockIt } = suite;
  /** Saves a session under each id in turn (the id as its user), the clock a second on after each. */
  const saveASecondApart = async (sessions: ReturnType<typeof sessionApi>, sids: string[]): Promise<void> => {
    for (const sid of sids) {
      await sessions.set(sid, givenSession(sid));
      clock.advance(1000);
    }
  };

  describe('sessions', () => {
    it('set then get returns the session; destroy removes it; an unknown sid has none', async () => {
      const sessions = sessionApi(store);
      const data = givenSession('u1');
      await sessions.set('sid-1', data);
      expect(await sessions.get('sid-1')).toEqual(data);
      expect(await sessions.get('sid-unknown')).toBeFalsy();
      await sessions.set('sid-1', givenSession('u2'));
      expect(await sessions.get('sid-1')).toEqual(givenSession('u2'));
      await sessions.destroy('sid-1');
      expect(await sessions.get('sid-1')).toBeFalsy();
    });

    it('a session expires sessionTtlMs after it was stored', async () => {
      const ttl = capabilities.expiresOn === 'clock' ? 60_000 : 1000;
      const sessions = sessionApi((await openStore({ sessionTtlMs: ttl })).store);
      await sessions.set('sid-1', givenSession('u1'));
      expect(await sessions.get('sid-1')).toEqual(givenSession('u1'));
      clock.advance(ttl);
      await eventually(async () => !(await sessions.get('sid-1')) || null);
      expect(await sessions.get('sid-1')).toBeFalsy();
    });

    it('past maxSessions, the least recently used session ends: a save and a touch are uses, and a new one is never refused', async () => {
      const sessions = sessionApi((await openStore({ maxSessions: 3 })).store);
      await saveASecondApart(sessions, ['sid-1', 'sid-2', 'sid-3']);
      await sessions.touch('sid-1', givenSession('sid-1'));
      clock.advance(1000);
      await sessions.set('sid-4', givenSession('sid-4'));
      expect(await sessions.get('sid-2')).toBeFalsy();
      for (const sid of ['sid-1', 'sid-3', 'sid-4']) expect(await sessions.get(sid)).toEqual(givenSession(sid));
      clock.advance(1000);
      await sessions.set('sid-5', givenSession('sid-5'));
      expect(await sessions.get('sid-3')).toBeFalsy();
      expect(await sessions.get('sid-5')).toEqual(givenSession('sid-5'));
    });

    it('a destroyed session leaves room under maxSessions', async () => {
      const sessions = sessionApi((await openStore({ maxSessions: 2 })).store);
      await saveASecondApart(sessions, ['sid-1', 'sid-2']);
      await sessions.destroy('sid-2');
      await sessions.set('sid-3', givenSession('sid-3'));
      expect(await sessions.get('sid-1')).toEqual(givenSession('sid-1'));
      expect(await sessions.get('sid-3')).toEqual(givenSession('sid-3'));
    });

    onClockIt('touch extends a session by sessionTtlMs from the touch', async () => {
      const sessions = sessionApi((await openStore({ sessionTtlMs: 60_000 })).store);
      await sessions.set('sid-1', givenSession('u1'));
      clock.advance(50_000);
      await sessions.touch('sid-1', givenSession('u1'));
      clock.advance(50_000);
      expect(await sessions.get('sid-1')).toEqual(givenSession('u1'));
      clock.advance(10_000);
      expect(await sessions.get('sid-1')).toBeFalsy();
    });
  });
}

/** A login session of `userId`, as express-session stores one. */
export function givenSession(userId: string): SessionData {
  return {
    cookie: { originalMaxAge: 3_600_000, httpOnly: true, path: '/', secure: false, sameSite: 'lax' },
    userId,
    csrfToken: `csrf-${userId}`,
  } as unknown as SessionData;
}

/** express-session's callback API as promises. */
export function sessionApi(store: Store): {
  get(sid: string): Promise<SessionData | null | undefined>;
  set(sid: string, data: SessionData): Promise<void>;
  destroy(sid: string): Promise<void>;
  touch(sid: string, data: SessionData): Promise<void>;
} {
  const s = store.sessions;
  const done = (resolve: () => void, reject: (e: Error) => void) => (err?: unknown) =>
    err ? reject(err instanceof Error ? err : new Error(JSON.stringify(err))) : resolve();
  return {
    get: (sid) =>
      new Promise((resolve, reject) =>
        s.get(sid, (err, data) =>
          err ? reject(err instanceof Error ? err : new Error(JSON.stringify(err))) : resolve(data),
        ),
      ),
    set: (sid, data) => new Promise((resolve, reject) => s.set(sid, data, done(resolve, reject))),
    destroy: (sid) => new Promise((resolve, reject) => s.destroy(sid, done(resolve, reject))),
    touch: (sid, data) =>
      new Promise((resolve, reject) =>
        s.touch ? s.touch(sid, data, () => resolve()) : reject(new Error('the session store has no touch')),
      ),
  };
}
