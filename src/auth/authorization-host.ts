import type { Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';

import { html } from '../http/html.js';
import { safeInput } from '../http/operation.js';
import type { AccountDoc, DeepReadonly, UserRecord } from '../store/data.js';
import {
  loginUrl,
  parseAuthorizationRequest,
  redirectBack,
  requestFields,
  SIGN_IN_FORM,
  type AuthorizationParams,
  type AuthorizationRequest,
  type ParsedRequest,
} from './authorization-request.js';
import type { Client } from './clients.js';
import { connectedApp, foreignApp } from './connected-apps.js';
import { consentToken } from './consent-token.js';
import { createCsrf, type Csrf } from './csrf.js';
import { grantCode } from './grants.js';
import type { OAuthDeps } from './oauth-deps.js';
import { consentPage, sendFormPage, sendMessagePage, sendSignInPage } from './pages.js';
import { noteSessionClient } from './session-clients.js';
import { loginSession } from './session.js';

/** What the authorization host's pages share: the session, the forms' CSRF tokens, the pages, and the way back to the client. */
export interface AuthorizationHost {
  deps: OAuthDeps;
  session: RequestHandler;
  csrf: Csrf;
  /** An error page; with `retry`, a link back to the sign-in page of that request. */
  sendError: (res: Response, status: number, title: string, message: string, retry?: AuthorizationRequest) => void;
  /** The sign-in form of an authorization request, with the email given and the error of a failed attempt. */
  showSignIn: (
    req: Request,
    res: Response,
    status: number,
    client: Client,
    request: AuthorizationRequest,
    extra?: { email?: string; error?: string },
  ) => void;
  /**
   * Issues a code to the user and sends the browser back to the client with it; the session
   * notes the client (its sign-out then needs no confirmation). `standing` as grantCode's.
   */
  redirectWithCode: (
    req: Request,
    res: Response,
    request: AuthorizationRequest,
    user: DeepReadonly<UserRecord>,
    standing: Parameters<typeof grantCode>[3],
  ) => Promise<void>;
  /**
   * Reads a page's query or form (`where`) and the authorization request it carries; null once
   * the error page is sent (titled `invalid` for input the schema refuses).
   */
  readRequest: <S extends z.ZodType<AuthorizationParams>>(
    res: Response,
    schema: S,
    value: unknown,
    where: 'body' | 'query',
    invalid: string,
  ) => Promise<{ input: z.output<S>; parsed: ParsedRequest & { ok: true } } | null>;
  /**
   * A signed-in user asked for a code: at once, or, for a client of another account that the
   * user has not allowed (or whose allowance the account revoked), after the consent page.
   */
  authorize: (
    req: Request,
    res: Response,
    parsed: ParsedRequest & { ok: true },
    user: DeepReadonly<UserRecord>,
  ) => Promise<void>;
}

export function createAuthorizationHost(deps: OAuthDeps): AuthorizationHost {
  const csrf = createCsrf(deps);

  const sendError: AuthorizationHost['sendError'] = (res, status, title, message, retry) =>
    sendMessagePage(deps, res, status, {
      title,
      message,
      note: 'Water-monitoring sandbox authorization host.',
      ...(retry ? { link: { href: loginUrl(retry), text: 'Open the sign-in page again' } } : {}),
    });

  const showSignIn: AuthorizationHost['showSignIn'] = (req, res, status, client, request, extra = {}) =>
    sendSignInPage(deps, csrf, req, res, status, SIGN_IN_FORM, {
      title: `Sign in - ${client.applicationName}`,
      lead: html`to continue to <strong id="application-name">${client.applicationName}</strong>`,
      action: '/login',
      hidden: requestFields(request),
      ...extra,
      note: html`Water-monitoring sandbox: sign in with a sandbox user (see the README); nothing here reaches production.`,
    });

  const showConsent = (
    req: Request,
    res: Response,
    client: Client,
    request: AuthorizationRequest,
    user: DeepReadonly<UserRecord>,
    doc: DeepReadonly<AccountDoc>,
  ): void => {
    sendFormPage(
      deps,
      res,
      200,
      consentPage({
        applicationName: client.applicationName,
        clientId: client.clientId,
        applicationWebsite: client.registration?.applicationWebsite ?? null,
        accountName: doc.account.name,
        userEmail: user.email,
        action: '/login/consent',
        hidden: requestFields(request),
        csrfToken: consentToken({ csrf, ids: deps.ids }, req, res, request, deps.clock.now().getTime()),
      }),
    );
  };

  const redirectWithCode: AuthorizationHost['redirectWithCode'] = async (req, res, request, user, standing) => {
    const code = await grantCode(deps, request, user, standing);
    noteSessionClient(req.session, request.clientId);
    res.set('Cache-Control', 'no-store').redirect(302, redirectBack(request, { code }));
  };

  const readRequest: AuthorizationHost['readRequest'] = async (res, schema, value, where, invalid) => {
    const read = safeInput(schema, value, where);
    if (!read.ok) {
      sendError(res, 400, invalid, read.message);
      return null;
    }
    const parsed = await parseAuthorizationRequest(deps, read.data);
    if (!parsed.ok) {
      sendError(res, 400, parsed.title, parsed.message);
      return null;
    }
    return { input: read.data, parsed };
  };

  const authorize: AuthorizationHost['authorize'] = async (req, res, parsed, user) => {
    // SANDBOX: production has no consent page. On a sandbox shared by partners who do not know each
    // other, a code for a client that another account registered would hand this user's account to
    // that account's owner (who chose the redirect URI), so the user is asked first, until the
    // account revokes the app. A client of the user's own account, or of the fixtures, needs no consent.
    const app = foreignApp(parsed.client, user.accountId);
    if (app) {
      const doc = await deps.store.accounts.get(user.accountId);
      if (!doc) {
        sendError(res, 403, 'Signed out', 'The account of this browser no longer exists; sign in again.');
        return;
      }
      if (!connectedApp(doc, app, user.userId)) {
        showConsent(req, res, parsed.client, parsed.request, user, doc);
        return;
      }
    }
    // A code issued without the page was allowed before: it is a grant of the connected app all the same.
    return redirectWithCode(req, res, parsed.request, user, { consented: app !== null });
  };

  return { deps, session: loginSession(deps), csrf, sendError, showSignIn, redirectWithCode, readRequest, authorize };
}
