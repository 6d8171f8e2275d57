import type { OperationRouter } from '../http/operation.js';
import type { AuthorizationHost } from './authorization-host.js';
import { consentForm, redirectBack } from './authorization-request.js';
import { ConsentForm, consentOp } from './operations.js';
import { signedInUser } from './users.js';

/** POST /login/consent: the signed-in user's answer to a client another account registered. */
export function consentRoutes(api: OperationRouter, host: AuthorizationHost): void {
  const { deps, session, csrf, sendError, readRequest, redirectWithCode } = host;

  api.handle(
    consentOp,
    async (_input, req, res) => {
      const read = await readRequest(res, ConsentForm, req.body ?? {}, 'body', 'Invalid consent');
      if (!read) return;
      const { input: body } = read;
      const { request } = read.parsed;
      if (!csrf.valid(req, consentForm(request), body.csrf_token)) {
        sendError(
          res,
          403,
          'Consent form expired',
          'This answer was not sent from a current consent page of this browser for this application; open the sign-in page again.',
          request,
        );
        return;
      }
      const user = await signedInUser(deps.store, req.session);
      if (!user) {
        sendError(res, 403, 'Signed out', 'This browser is no longer signed in; open the sign-in page again.', request);
        return;
      }
      if (body.decision === 'deny') {
        // RFC 6749 section 4.1.2.1: the refusal goes to the client, with its state.
        res.set('Cache-Control', 'no-store').redirect(302, redirectBack(request, { error: 'access_denied' }));
        return;
      }
      if (body.decision !== 'allow') {
        sendError(
          res,
          400,
          'Invalid consent',
          `decision must be "allow" or "deny"; ${body.decision === undefined ? 'it is missing' : `got ${JSON.stringify(body.decision)}`}`,
          request,
        );
        return;
      }
      await redirectWithCode(res, request, user);
    },
    session,
  );
}
