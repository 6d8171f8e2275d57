import type { Response } from 'express';
import type { z } from 'zod';

import { safeInput, type OperationRouter } from '../http/operation.js';
import type { AuthorizationHost } from './authorization-host.js';
import { findClient, type Client } from './clients.js';
import { foreignApp } from './connected-apps.js';
import { LogoutForm, LogoutQuery, logoutConfirmOp, logoutOp } from './operations.js';
import { sendFormPage, sendMessagePage, signOutPage } from './pages.js';
import { signedInThrough } from './session-clients.js';
import { endSession } from './session.js';
import { signedInUser } from './users.js';

/** What a sign-out names, as the schemas read it. */
interface SignOutParams {
  client_id?: string | undefined;
  logout_uri?: string | undefined;
}

/** The CSRF purpose of the sign-out page of one client and sign-out URI. */
const signOutForm = (clientId: string, logoutUri: string): string => `sign-out\n${clientId}\n${logoutUri}`;

/**
 * GET /logout (production's sign-out) and POST /logout (the sandbox's confirmation of it).
 *
 * SANDBOX: production ends the session and redirects on any GET naming a client and one of its
 * sign-out URIs. On a sandbox that strangers share, any account registers any https sign-out URI,
 * so that would be an open redirect, and a way for any site to sign anyone out. Here a GET acts at
 * once only for a session that signed in through that client (got a code for it), when the client
 * is the fixtures' or one of the user's own account. Otherwise a signed-in browser is asked first
 * (a POST with the page's CSRF token), and the browser goes to a sign-out URI of another account
 * never. A browser not signed in has nothing to end: a fixture client's URI is followed (the demo
 * apps' flow), another client's is not.
 */
export function logoutRoutes(api: OperationRouter, host: AuthorizationHost): void {
  const { deps, session, csrf, sendError } = host;

  const info = (res: Response, title: string, message: string): void =>
    sendMessagePage(deps, res, 200, {
      title,
      message,
      tone: 'info',
      note: 'Water-monitoring sandbox authorization host.',
    });

  /** The client and sign-out URI a GET or POST names, checked; null once the error page is sent. */
  const readSignOut = async <S extends z.ZodType<SignOutParams>>(
    res: Response,
    schema: S,
    value: unknown,
    where: 'query' | 'body',
  ): Promise<{ client: Client; logoutUri: string; input: z.output<S> } | null> => {
    const read = safeInput(schema, value, where);
    if (!read.ok) {
      sendError(res, 400, 'Invalid sign-out request', read.message);
      return null;
    }
    const { client_id: id, logout_uri: logoutUri } = read.data;
    if (!id) {
      sendError(
        res,
        400,
        'Invalid sign-out request',
        'client_id is missing: the sign-out link must carry the client_id of a registered application',
      );
      return null;
    }
    const client = await findClient(deps, id);
    if (!client) {
      sendError(res, 400, 'Unknown application', `No application is registered with client_id ${JSON.stringify(id)}`);
      return null;
    }
    if (!logoutUri) {
      sendError(
        res,
        400,
        'Invalid sign-out request',
        `logout_uri is missing: give one of the sign-out URIs registered for ${client.applicationName}`,
      );
      return null;
    }
    if (!client.signOutUris.includes(logoutUri)) {
      const registered =
        client.signOutUris.length > 0
          ? `registered: ${client.signOutUris.join(', ')}`
          : 'it has no sign-out URI registered';
      sendError(
        res,
        400,
        'Sign-out URI not registered',
        `logout_uri ${JSON.stringify(logoutUri)} is not registered for ${client.applicationName}; ${registered}`,
      );
      return null;
    }
    return { client, logoutUri, input: read.data };
  };

  /** Whether the sign-out URI may be followed after the user of `accountId` (or a visitor, null) signs out: the fixtures' client, or one of the user's own account. */
  const trusted = (client: Client, accountId: string | null): boolean =>
    client.registration === undefined || (accountId !== null && foreignApp(client, accountId) === null);

  const notSignedIn = (res: Response, client: Client): void =>
    info(
      res,
      'Not signed in',
      `This browser is not signed in to the water sandbox, so there is nothing to sign out of. ${client.applicationName} asked for this page: you can close it.`,
    );

  api.handle(
    logoutOp,
    async (_input, req, res) => {
      const read = await readSignOut(res, LogoutQuery, req.query, 'query');
      if (!read) return;
      const { client, logoutUri } = read;
      const user = await signedInUser(deps.store, req.session);
      if (!user) {
        if (!trusted(client, null)) {
          notSignedIn(res, client);
          return;
        }
        await endSession(deps, req, res);
        res.set('Cache-Control', 'no-store').redirect(302, logoutUri);
        return;
      }
      if (trusted(client, user.accountId) && signedInThrough(req.session, client.clientId)) {
        await endSession(deps, req, res);
        res.set('Cache-Control', 'no-store').redirect(302, logoutUri);
        return;
      }
      // Another site's link, or another account's application: nothing ends without the user's say.
      sendFormPage(
        deps,
        res,
        200,
        signOutPage({
          applicationName: client.applicationName,
          userEmail: user.email,
          action: '/logout',
          hidden: { client_id: client.clientId, logout_uri: logoutUri },
          csrfToken: csrf.token(req, res, signOutForm(client.clientId, logoutUri)),
        }),
      );
    },
    session,
  );

  api.handle(
    logoutConfirmOp,
    async (_input, req, res) => {
      const read = await readSignOut(res, LogoutForm, req.body ?? {}, 'body');
      if (!read) return;
      const { client, logoutUri, input } = read;
      if (!csrf.valid(req, signOutForm(client.clientId, logoutUri), input.csrf_token)) {
        sendError(
          res,
          403,
          'Sign-out refused',
          'This sign-out was not sent from a current sign-out page of this browser; nothing changed. Open the sign-out link again.',
        );
        return;
      }
      const user = await signedInUser(deps.store, req.session);
      await endSession(deps, req, res);
      if (trusted(client, user?.accountId ?? null)) {
        res.set('Cache-Control', 'no-store').redirect(303, logoutUri);
        return;
      }
      info(
        res,
        'Signed out',
        `This browser is signed out of the water sandbox. ${client.applicationName} is an application of another sandbox account, so the sandbox does not send you on to it: you can close this page.`,
      );
    },
    session,
  );
}
