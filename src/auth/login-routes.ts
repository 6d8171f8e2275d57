import { clientAddressKey } from '../http/client-address.js';
import { safeInput, type OperationRouter } from '../http/operation.js';
import type { AuthorizationHost } from './authorization-host.js';
import { parseAuthorizationRequest, SIGN_IN_FORM } from './authorization-request.js';
import { AuthorizationQuery, LoginForm, loginOp, loginPageOp } from './operations.js';
import { createSignIn, startUserSession } from './sign-in.js';
import { signedInUser } from './users.js';

/** GET /login (the sign-in page of an authorization request) and POST /login (its form). */
export function loginRoutes(api: OperationRouter, host: AuthorizationHost): void {
  const { deps, session, csrf, sendError, showSignIn, authorize } = host;
  const signIn = createSignIn(deps);

  api.handle(
    loginPageOp,
    async (_input, req, res) => {
      const query = safeInput(AuthorizationQuery, req.query, 'query');
      if (!query.ok) return sendError(res, 400, 'Invalid sign-in request', query.message);
      const parsed = await parseAuthorizationRequest(deps, query.data);
      if (!parsed.ok) return sendError(res, 400, parsed.title, parsed.message);
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
      const form = safeInput(LoginForm, req.body ?? {}, 'body');
      if (!form.ok) return sendError(res, 400, 'Invalid sign-in request', form.message);
      const body = form.data;
      const parsed = await parseAuthorizationRequest(deps, body);
      if (!parsed.ok) return sendError(res, 400, parsed.title, parsed.message);
      const { client, request } = parsed;
      if (!csrf.valid(req, SIGN_IN_FORM, body.csrf_token)) {
        return sendError(res, 403, 'Sign-in form expired', 'This form was not sent from a current sign-in page of this browser (or cookies are blocked); open the sign-in page again.', request);
      }
      const outcome = await signIn(clientAddressKey(req), body.email, body.password);
      if (!outcome.ok) {
        res.set(outcome.headers);
        return showSignIn(req, res, outcome.status, client, request, { email: outcome.email, error: outcome.error });
      }
      await startUserSession(deps, req, outcome.user);
      await authorize(req, res, parsed, outcome.user);
    },
    session,
  );
}
