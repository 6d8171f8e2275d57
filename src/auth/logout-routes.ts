import { safeInput, type OperationRouter } from '../http/operation.js';
import type { AuthorizationHost } from './authorization-host.js';
import { findClient } from './clients.js';
import { LogoutQuery, logoutOp } from './operations.js';
import { endSession } from './session.js';

/** GET /logout: ends the browser's session and goes to one of the client's registered sign-out URIs. */
export function logoutRoutes(api: OperationRouter, host: AuthorizationHost): void {
  const { deps, session, sendError } = host;

  api.handle(
    logoutOp,
    async (_input, req, res) => {
      const query = safeInput(LogoutQuery, req.query, 'query');
      if (!query.ok) {
        sendError(res, 400, 'Invalid sign-out request', query.message);
        return;
      }
      const { client_id: id, logout_uri: logoutUri } = query.data;
      if (!id) {
        sendError(
          res,
          400,
          'Invalid sign-out request',
          'client_id is missing: the sign-out link must carry the client_id of a registered application',
        );
        return;
      }
      const client = await findClient(deps, id);
      if (!client) {
        sendError(res, 400, 'Unknown application', `No application is registered with client_id ${JSON.stringify(id)}`);
        return;
      }
      if (!logoutUri) {
        sendError(
          res,
          400,
          'Invalid sign-out request',
          `logout_uri is missing: give one of the sign-out URIs registered for ${client.applicationName}`,
        );
        return;
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
        return;
      }
      await endSession(deps, req, res);
      res.set('Cache-Control', 'no-store').redirect(302, logoutUri);
    },
    session,
  );
}
