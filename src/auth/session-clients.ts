import type { Session, SessionData } from 'express-session';

declare module 'express-session' {
  interface SessionData {
    /** The clients this login session got a code for, oldest first: sign-out through them needs no confirmation (logout-routes.ts). */
    clients: string[];
  }
}

/** The clients a session remembers (the newest); one it signs in to beyond them pushes the oldest out. */
export const MAX_SESSION_CLIENTS = 20;

/** Notes that the session's user got a code for `clientId`; express-session stores it with the session at the end of the request. */
export function noteSessionClient(session: Session & Partial<SessionData>, clientId: string): void {
  const others = (session.clients ?? []).filter((id) => id !== clientId);
  session.clients = [...others, clientId].slice(-MAX_SESSION_CLIENTS);
}

/** Whether the session's user signed in to `clientId` (got a code for it) in this session. */
export const signedInThrough = (session: Partial<SessionData>, clientId: string): boolean =>
  session.clients?.includes(clientId) === true;
