import type { Request, RequestHandler, Response } from 'express';

import { OAuthError, oauthError } from '../core/errors.js';
import { safeInput, type OperationRouter } from '../http/operation.js';
import { noteJournalSubject, noteRequestFacts } from '../http/request-context.js';
import type { IndexKind } from '../store/store.js';
import { clientEndpoint } from './client-endpoint.js';
import { authenticateClient } from './clients.js';
import { redeem, type Redeemed } from './grants.js';
import type { OAuthDeps } from './oauth-deps.js';
import { TokenForm, tokenOp } from './operations.js';
import { createTokenThrottle } from './throttle.js';
import { deliverTokenResponse } from './token-delivery.js';
import { tokenTail } from './tokens.js';

/**
 * Puts a token request in the journal of the account whose grant it names (the code's or the
 * refresh token's), when that account exists: the readiness report grades code exchanges and
 * refreshes from it. A request naming no known grant belongs to no account.
 */
async function noteTokenRequest(
  deps: OAuthDeps,
  res: Response,
  grantType: string | undefined,
  grant: { kind: IndexKind; key: string } | null,
  outcome: { issued: string } | { error: string },
): Promise<void> {
  if (grant === null) return;
  const owner = await deps.store.accounts.findByKey(grant.kind, grant.key);
  if (!owner) return;
  noteJournalSubject(res, { accountId: owner.accountId, via: 'client', clock: owner.doc.clock, internal: false });
  noteRequestFacts(res, {
    ...(grantType === undefined ? {} : { grantType }),
    ...('issued' in outcome ? { issuedToken: outcome.issued } : { oauthError: outcome.error }),
  });
}

/** The grant a token request names, to find its account by. */
function grantOf(body: {
  grant_type?: string | undefined;
  code?: string | undefined;
  refresh_token?: string | undefined;
}): { kind: IndexKind; key: string } | null {
  if (body.grant_type === 'authorization_code' && body.code !== undefined)
    return { kind: 'authorizationCode', key: body.code };
  if (body.grant_type === 'refresh_token' && body.refresh_token !== undefined)
    return { kind: 'refreshToken', key: body.refresh_token };
  return null;
}

/** A token request past the throttle: the client authenticated, the grant checked and spent, the tokens issued. */
async function exchange(deps: OAuthDeps, req: Request, res: Response): Promise<void> {
  // RFC 6749 section 3.2: parameters must not be repeated.
  const form = safeInput(TokenForm, req.body ?? {}, 'body');
  if (!form.ok) throw oauthError('invalid_request', form.message);
  const body = form.data;
  const grant = grantOf(body);
  let issued: Redeemed;
  try {
    const client = await authenticateClient(deps, req.headers.authorization, {
      clientId: body.client_id,
      clientSecret: body.client_secret,
    });
    const grantType = body.grant_type;
    if (grantType === 'authorization_code')
      issued = await redeem(deps, client, { grantType, code: body.code, redirectUri: body.redirect_uri });
    else if (grantType === 'refresh_token')
      issued = await redeem(deps, client, { grantType, refreshToken: body.refresh_token });
    else if (grantType === undefined)
      throw oauthError('invalid_request', 'grant_type is missing: use authorization_code or refresh_token');
    else
      throw oauthError(
        'unsupported_grant_type',
        `grant_type ${JSON.stringify(grantType)} is not supported; use authorization_code or refresh_token`,
      );
    await deliverTokenResponse(deps, {
      accountId: issued.accountId,
      client,
      redirectUri: issued.redirectUri,
      response: issued.response,
    });
  } catch (error) {
    if (error instanceof OAuthError) await noteTokenRequest(deps, res, body.grant_type, grant, { error: error.code });
    throw error;
  }
  // The refresh token sent is spent now: the new access token's grant names the account.
  await noteTokenRequest(
    deps,
    res,
    body.grant_type,
    { kind: 'accessToken', key: issued.response.access_token },
    { issued: tokenTail(issued.response.access_token) },
  );
  res.json(issued.response);
}

const TOKEN_FORM = { request: 'token', needs: 'grant_type and its parameters (RFC 6749 section 4.1.3)' };

/** POST /oauth2/token, throttled per client address; `recordRequest` journals it for the account of its grant. */
export function tokenRoutes(api: OperationRouter, deps: OAuthDeps, recordRequest?: RequestHandler): void {
  const tokenThrottle = createTokenThrottle(deps);
  const beforeToken = recordRequest === undefined ? [] : [recordRequest];
  api.handle(
    tokenOp,
    (_input, req, res) => clientEndpoint(tokenThrottle, req, res, TOKEN_FORM, () => exchange(deps, req, res)),
    ...beforeToken,
  );
}
