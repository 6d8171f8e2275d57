import type { Request, RequestHandler, Response } from 'express';

import { html } from '../http/html.js';
import type { DeepReadonly, UserRecord } from '../store/data.js';
import { consentForm, loginUrl, needsConsent, redirectBack, requestFields, SIGN_IN_FORM, type AuthorizationRequest, type ParsedRequest } from './authorization-request.js';
import type { Client } from './clients.js';
import { createCsrf, type Csrf } from './csrf.js';
import { grantCode } from './grants.js';
import type { OAuthDeps } from './oauth-deps.js';
import { consentPage, messagePage, sendFormPage, signInPage } from './pages.js';
import { loginSession } from './session.js';

/** What the authorization host's pages share: the session, the forms' CSRF tokens, the pages, and the way back to the client. */
export interface AuthorizationHost {
  deps: OAuthDeps;
  session: RequestHandler;
  csrf: Csrf;
  /** An error page; with `retry`, a link back to the sign-in page of that request. */
  sendError: (res: Response, status: number, title: string, message: string, retry?: AuthorizationRequest) => void;
  /** The sign-in form of an authorization request, with the email given and the error of a failed attempt. */
  showSignIn: (req: Request, res: Response, status: number, client: Client, request: AuthorizationRequest, extra?: { email?: string; error?: string }) => void;
  /** Issues a code to the user and sends the browser back to the client with it. */
  redirectWithCode: (res: Response, request: AuthorizationRequest, user: DeepReadonly<UserRecord>) => Promise<void>;
  /** A signed-in user asked for a code: at once, or after consent. */
  authorize: (req: Request, res: Response, parsed: ParsedRequest & { ok: true }, user: DeepReadonly<UserRecord>) => Promise<void>;
}

export function createAuthorizationHost(deps: OAuthDeps): AuthorizationHost {
  const csrf = createCsrf(deps);

  const sendError: AuthorizationHost['sendError'] = (res, status, title, message, retry) =>
    sendFormPage(deps, res, status, messagePage({ title, message, note: 'Water-monitoring sandbox authorization host.', ...(retry ? { link: { href: loginUrl(retry), text: 'Open the sign-in page again' } } : {}) }));

  const showSignIn: AuthorizationHost['showSignIn'] = (req, res, status, client, request, extra = {}) => {
    const csrfToken = csrf.token(req, res, SIGN_IN_FORM);
    sendFormPage(
      deps,
      res,
      status,
      signInPage({
        title: `Sign in - ${client.applicationName}`,
        lead: html`to continue to <strong id="application-name">${client.applicationName}</strong>`,
        action: '/login',
        hidden: requestFields(request),
        csrfToken,
        ...extra,
        note: html`Water-monitoring sandbox: sign in with a sandbox user (see the README); nothing here reaches production.`,
      }),
    );
  };

  const showConsent = async (req: Request, res: Response, client: Client, request: AuthorizationRequest, user: DeepReadonly<UserRecord>): Promise<void> => {
    const doc = await deps.store.accounts.get(user.accountId);
    sendFormPage(
      deps,
      res,
      200,
      consentPage({
        applicationName: client.applicationName,
        applicationWebsite: client.registration?.applicationWebsite ?? null,
        accountName: doc?.account.name ?? user.accountId,
        userEmail: user.email,
        action: '/login/consent',
        hidden: requestFields(request),
        csrfToken: csrf.token(req, res, consentForm(request)),
      }),
    );
  };

  const redirectWithCode: AuthorizationHost['redirectWithCode'] = async (res, request, user) => {
    const code = await grantCode(deps, request, user);
    res.set('Cache-Control', 'no-store').redirect(302, redirectBack(request, { code }));
  };

  const authorize: AuthorizationHost['authorize'] = async (req, res, parsed, user) => {
    if (needsConsent(parsed, user)) return showConsent(req, res, parsed.client, parsed.request, user);
    return redirectWithCode(res, parsed.request, user);
  };

  return { deps, session: loginSession(deps), csrf, sendError, showSignIn, redirectWithCode, authorize };
}
