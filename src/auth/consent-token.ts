import type { Request, Response } from 'express';

import { AppError } from '../core/errors.js';
import type { Ids } from '../core/ids.js';
import type { AccountDoc } from '../store/data.js';
import type { AuthorizationRequest } from './authorization-request.js';
import type { Csrf } from './csrf.js';

/**
 * The consent page's token: single-use, and bound to the whole authorization request.
 *
 * It is `<page>.<shownAtMs>.<mac>`: `page` a random id of this one page, and the mac the
 * browser's CSRF token (csrf.ts: bound to its signed-in session) of a purpose that names the page,
 * when it was shown, and every parameter of the request the page carries (client, redirect URI,
 * state, scope, PKCE challenge and method). Changing any of them (another state, another redirect
 * URI) gives another purpose, which the mac does not answer.
 *
 * Single use: an answer (Allow or Deny) records the page as answered in the account's document,
 * in the same change that issues the code, and only when it was not recorded already; so a page
 * issues at most one code, on every store and through any replica (the change is atomic). Only
 * that page is spent: the pages other people have open for the same account (the shared demo
 * user of a hosted sandbox) are not, whoever answers theirs.
 */

/** How long a consent page can be answered, on the process clock (the browser's time, not the account's). */
export const CONSENT_PAGE_TTL_MS = 15 * 60 * 1000;

/**
 * The answered pages an account remembers while they could still be answered. Past it the
 * oldest is forgotten and every page shown until it was is refused as answered: a flood of
 * answers shortens how long a page can wait, and never lets one answer twice.
 */
export const MAX_ANSWERED_CONSENT_PAGES = 500;

const TOKEN = /^([\w-]{16,64})\.(\d{1,15})\.([\w-]{1,100})$/;

/** A consent page that an answer names: its id and when it was shown (process clock). */
export interface ConsentPage {
  page: string;
  shownAtMs: number;
}

/** The form's purpose: the page, the time it was shown, and every parameter of the request. */
const purposeOf = (request: AuthorizationRequest, page: ConsentPage): string =>
  `consent\n${JSON.stringify([
    page.page,
    page.shownAtMs,
    request.clientId,
    request.redirectUri,
    request.state,
    request.scope,
    request.codeChallenge,
    request.codeChallengeMethod,
  ])}`;

/** The token of a new consent page of `request`, shown now to this browser. */
export function consentToken(
  deps: { csrf: Csrf; ids: Ids },
  req: Request,
  res: Response,
  request: AuthorizationRequest,
  nowMs: number,
): string {
  const page = { page: deps.ids.secret(16), shownAtMs: nowMs };
  return `${page.page}.${page.shownAtMs}.${deps.csrf.token(req, res, purposeOf(request, page))}`;
}

/**
 * Reads a consent answer's token: the page it names, or why it is refused (not this browser's
 * page of this very request; or too old).
 */
export function readConsentToken(
  csrf: Csrf,
  req: Request,
  request: AuthorizationRequest,
  given: string | undefined,
  nowMs: number,
): { ok: true; page: ConsentPage } | { ok: false; reason: 'forged' | 'expired' } {
  const [, id, shownAt, mac] = TOKEN.exec(given ?? '') ?? [];
  if (id === undefined || shownAt === undefined || mac === undefined) return { ok: false, reason: 'forged' };
  const page = { page: id, shownAtMs: Number(shownAt) };
  if (!csrf.valid(req, purposeOf(request, page), mac)) return { ok: false, reason: 'forged' };
  if (nowMs < page.shownAtMs || nowMs - page.shownAtMs > CONSENT_PAGE_TTL_MS) return { ok: false, reason: 'expired' };
  return { ok: true, page };
}

const answeredAlready = (): AppError =>
  new AppError(
    403,
    'consent_answered',
    'This consent page was answered already (Allow or Deny); open the sign-in page again.',
  );

/**
 * Spends a consent page in the change that answers it (`nowMs` on the process clock): a 403 when
 * it was answered already. Pages that can no longer be answered (too old) are forgotten.
 */
export function spendConsentPage(doc: AccountDoc, page: ConsentPage, nowMs: number): void {
  if (page.shownAtMs <= (doc.consentPagesForgottenUntilMs ?? -1)) throw answeredAlready();
  const answered = (doc.answeredConsentPages ?? []).filter((p) => nowMs - p.shownAtMs <= CONSENT_PAGE_TTL_MS);
  if (answered.some((p) => p.page === page.page)) throw answeredAlready();
  answered.push({ page: page.page, shownAtMs: page.shownAtMs });
  const forgotten = answered.splice(0, Math.max(0, answered.length - MAX_ANSWERED_CONSENT_PAGES));
  for (const p of forgotten)
    doc.consentPagesForgottenUntilMs = Math.max(doc.consentPagesForgottenUntilMs ?? -1, p.shownAtMs);
  doc.answeredConsentPages = answered;
}
