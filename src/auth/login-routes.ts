import { clientAddressKey } from '../http/client-address.js';
import type { OperationRouter } from '../http/operation.js';
import type { AuthorizationHost } from './authorization-host.js';
import { SIGN_IN_FORM } from './authorization-request.js';
import { AuthorizationQuery, LoginForm, loginOp, loginPageOp } from './operations.js';
import { createSignIn, startUserSession } from './sign-in.js';
import { signedInUser } from './users.js';

/** GET /login (the sign-in page of an authorization request) and POST /login (its form). */
export function loginRoutes(api: OperationRouter, host: AuthorizationHost): void {
  const { deps, session, csrf, sendError, showSignIn, readRequest, authorize } = host;
  const signIn = createSignIn(deps);

  api.handle(
    loginPageOp,
    async (_input, req, res) => {
      const read = await readRequest(res, AuthorizationQuery, req.query, 'query', 'Invalid sign-in request');
      if (!read) return;
      const { parsed } = read;
      // A browser that is already signed in goes straight back, as with a hosted login (or to the consent page).
      const user = await signedInUser(deps.store, req.session);
      if (user) return authorize(req, res, parsed, user);
      showSignIn(req, res, 200, parsed.client, parsed.request);
    },
    session,
  );

  api.handle(
    loginOp,
    async (_input, req, res) => {
      const read = await readRequest(res, LoginForm, req.body ?? {}, 'body', 'Invalid sign-in request');
      if (!read) return;
      const { input: body, parsed } = read;
      const { client, request } = parsed;
      if (!csrf.valid(req, SIGN_IN_FORM, body.csrf_token)) {
        sendError(
          res,
          403,
          'Sign-in form expired',
          'This form was not sent from a current sign-in page of this browser (or cookies are blocked); open the sign-in page again.',
          request,
        );
        return;
      }
      const outcome = await signIn(clientAddressKey(req), body.email, body.password);
      if (!outcome.ok) {
        res.set(outcome.headers);
        showSignIn(req, res, outcome.status, client, request, { email: outcome.email, error: outcome.error });
        return;
      }
      await startUserSession(deps, req, outcome.user);
      await authorize(req, res, parsed, outcome.user);
    },
    session,
  );
}
