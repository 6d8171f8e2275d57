import { oauthError } from '../core/errors.js';
import { safeInput, type OperationRouter } from '../http/operation.js';
import { clientEndpoint } from './client-endpoint.js';
import { authenticateClient } from './clients.js';
import { revokeClientToken } from './grants.js';
import type { OAuthDeps } from './oauth-deps.js';
import { RevokeForm, revokeOp } from './operations.js';
import { createTokenThrottle } from './throttle.js';

const REVOKE_FORM = { request: 'revocation', needs: 'token and, optionally, token_type_hint (RFC 7009 section 2.1)' };

/**
 * SANDBOX: production documents no revocation endpoint. POST /oauth2/revoke is RFC 7009's, for a
 * client's own tokens, authenticated as at /oauth2/token and limited with its failed requests.
 */
export function revokeRoutes(api: OperationRouter, deps: OAuthDeps): void {
  const throttle = createTokenThrottle(deps);
  api.handle(revokeOp, (_input, req, res) =>
    clientEndpoint(throttle, req, res, REVOKE_FORM, async () => {
      const form = safeInput(RevokeForm, req.body ?? {}, 'body');
      if (!form.ok) throw oauthError('invalid_request', form.message);
      const { token, token_type_hint: hint } = form.data;
      const client = await authenticateClient(deps, req.headers.authorization, {
        clientId: form.data.client_id,
        clientSecret: form.data.client_secret,
      });
      if (token === undefined || token === '')
        throw oauthError('invalid_request', 'token is required: the access token or refresh token to revoke');
      if (hint !== undefined && hint !== 'access_token' && hint !== 'refresh_token')
        throw oauthError(
          'invalid_request',
          `token_type_hint must be access_token or refresh_token (or left out); got ${JSON.stringify(hint)}`,
        );
      const outcome = await revokeClientToken(deps, client, token, hint);
      // RFC 7009 section 2.1: the server checks that the token was issued to the client asking, and refuses otherwise.
      if (outcome === 'another_client')
        throw oauthError(
          'unauthorized_client',
          `This token was issued to another client; client ${JSON.stringify(client.clientId)} revokes only its own tokens`,
        );
      // Section 2.2: 200 whether it was revoked or was not valid (unknown, expired, revoked already).
      // The body is ignored by the RFC's clients; an empty JSON object, since some (simple-oauth2) read every answer as JSON.
      res.status(200).json({});
    }),
  );
}
