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

    it('past maxSessions, the biggest holder loses its least recently used session: a flood of one holder never ends another holder’s session', async () => {
      const sessions = sessionApi((await openStore({ maxSessions: 4 })).store);
      // Two victims on their own networks, signed in first (the least recently used of all).
      await sessions.set('victim-1', givenSession('v1', '198.51.100.1'));
      await sessions.set('victim-2', givenSession('v2', '2001:db8:1::/48'));
      clock.advance(1000);
      // The flood: 50 sign-ins from one network.
      for (let i = 0; i < 50; i++) {
        await sessions.set(`flood-${i}`, givenSession('shared-user', '203.0.113.66'));
        clock.advance(10);
      }
      for (const sid of ['victim-1', 'victim-2']) expect(await sessions.get(sid)).toBeTruthy();
      // The flood kept its newest two: its oldest went first.
      expect(await sessions.get('flood-48')).toBeTruthy();
      expect(await sessions.get('flood-49')).toBeTruthy();
      expect(await sessions.get('flood-47')).toBeFalsy();
      // A touch makes a session its holder's most recent: then the other one goes first.
      await sessions.touch('flood-48', givenSession('shared-user', '203.0.113.66'));
      clock.advance(10);
      await sessions.set('flood-50', givenSession('shared-user', '203.0.113.66'));
      expect(await sessions.get('flood-48')).toBeTruthy();
      expect(await sessions.get('flood-49')).toBeFalsy();
      // When two holders hold as many, one of them loses its least recently used; a holder of fewer, nothing.
      await sessions.destroy('flood-48');
      await sessions.destroy('flood-50');
      await sessions.set('other-1', givenSession('u', '192.0.2.1'));
      await sessions.set('other-2', givenSession('u', '192.0.2.1'));
      clock.advance(10);
      await sessions.set('victim-3', givenSession('v3', '198.51.100.1'));
      const kept = async (sid: string): Promise<boolean> => Boolean(await sessions.get(sid));
      expect([await kept('victim-2'), await kept('victim-3'), await kept('other-2')]).toEqual([true, true, true]);
      expect([await kept('victim-1'), await kept('other-1')].sort()).toEqual([false, true]);
    });

    it('sign-ins of one millisecond (the clock not moving) end the holder’s oldest first, never its newest', async () => {
      const sessions = sessionApi((await openStore({ maxSessions: 3 })).store);
      await sessions.set('victim', givenSession('v', '198.51.100.1'));
      for (let i = 0; i < 30; i++) await sessions.set(`flood-${i}`, givenSession('shared-user', '203.0.113.66'));
      const kept = [];
      for (let i = 0; i < 30; i++) if (await sessions.get(`flood-${i}`)) kept.push(i);
      expect(kept).toEqual([28, 29]);
      expect(await sessions.get('victim')).toBeTruthy();
    });

    it('a session saved again under another holder counts for the new one only', async () => {
      const sessions = sessionApi((await openStore({ maxSessions: 2 })).store);
      await sessions.set('a', givenSession('u', 'net-1'));
      await sessions.set('b', givenSession('u', 'net-1'));
      await sessions.set('a', givenSession('u', 'net-2'));
      // net-1 holds one (b), net-2 one (a): a third of net-2 ends net-2's own.
      clock.advance(10);
      await sessions.set('c', givenSession('u', 'net-2'));
      expect(await sessions.get('b')).toBeTruthy();
      expect(await sessions.get('a')).toBeFalsy();
      expect(await sessions.get('c')).toBeTruthy();
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

/** A login session of `userId` (signed in from `holder`, when given), as express-session stores one. */
export function givenSession(userId: string, holder?: string): SessionData {
  return {
    cookie: { originalMaxAge: 3_600_000, httpOnly: true, path: '/', secure: false, sameSite: 'lax' },
    userId,
    csrfToken: `csrf-${userId}`,
    ...(holder === undefined ? {} : { holder }),
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
