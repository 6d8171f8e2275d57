import type { Request, Response } from 'express';

import { AppError } from '../core/errors.js';
import type { AccountDoc, DeepReadonly } from '../store/data.js';
import type { AuthorizationRequest } from './authorization-request.js';
import type { Csrf } from './csrf.js';

/**
 * The consent page's token: single-use, and bound to the whole authorization request.
 *
 * It is `<answers>.<shownAtMs>.<mac>`: the mac is the browser's CSRF token (csrf.ts: bound to
 * its signed-in session) of a purpose that names every parameter of the request the page
 * carries (client, redirect URI, state, scope, PKCE challenge and method), when the page was
 * shown, and how many consent pages the account's users had answered then. Changing any of them
 * (another state, another redirect URI) gives another purpose, which the mac does not answer.
 *
 * Single use: an answer (Allow or Deny) counts one more answer in the account's document, in the
 * same change that issues the code, and only when the count is still the one the token names; so
 * a token issues at most one code, on every store and through any replica (the change is atomic),
 * and an answer also spends the pages shown before it (another tab's page asks to start again).
 */

/** How long a consent page can be answered, on the process clock (the browser's time, not the account's). */
export const CONSENT_PAGE_TTL_MS = 15 * 60 * 1000;

const TOKEN = /^(\d{1,15})\.(\d{1,15})\.([\w-]{1,100})$/;

/** The form's purpose: every parameter of the request, the time it was shown, and the answers counted before. */
const purposeOf = (request: AuthorizationRequest, shownAtMs: number, answersBefore: number): string =>
  `consent\n${JSON.stringify([
    answersBefore,
    shownAtMs,
    request.clientId,
    request.redirectUri,
    request.state,
    request.scope,
    request.codeChallenge,
    request.codeChallengeMethod,
  ])}`;

/** The token of a consent page of `request` shown now to this browser, for the account's answers so far. */
export function consentToken(
  csrf: Csrf,
  req: Request,
  res: Response,
  request: AuthorizationRequest,
  doc: DeepReadonly<AccountDoc>,
  nowMs: number,
): string {
  const answers = doc.consentAnswers ?? 0;
  return `${answers}.${nowMs}.${csrf.token(req, res, purposeOf(request, nowMs, answers))}`;
}

/**
 * Reads a consent answer's token: the answers count it names, or why it is refused (not this
 * browser's page of this very request; or too old).
 */
export function readConsentToken(
  csrf: Csrf,
  req: Request,
  request: AuthorizationRequest,
  given: string | undefined,
  nowMs: number,
): { ok: true; answers: number } | { ok: false; reason: 'forged' | 'expired' } {
  const match = TOKEN.exec(given ?? '');
  if (!match) return { ok: false, reason: 'forged' };
  const answers = Number(match[1]);
  const shownAtMs = Number(match[2]);
  if (!csrf.valid(req, purposeOf(request, shownAtMs, answers), match[3])) return { ok: false, reason: 'forged' };
  if (nowMs < shownAtMs || nowMs - shownAtMs > CONSENT_PAGE_TTL_MS) return { ok: false, reason: 'expired' };
  return { ok: true, answers };
}

/**
 * Spends a consent page in the change that answers it: its count must be the account's, which
 * then counts one more answer. A 403 when the page was answered already (or a later one was).
 */
export function spendConsentPage(doc: AccountDoc, answers: number): void {
  if ((doc.consentAnswers ?? 0) !== answers) {
    throw new AppError(
      403,
      'consent_answered',
      'This consent page was answered already (here, or in another tab, where another consent page of this account was answered after it was shown); open the sign-in page again.',
    );
  }
  doc.consentAnswers = answers + 1;
}
