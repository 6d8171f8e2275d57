import type { DeepReadonly, UserRecord } from '../store/data.js';
import { findClientAndOwner, type Client, type ClientsDeps } from './clients.js';

/** The authorization request a form carries through its hidden fields. */
export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  state: string | null;
}

/** The parameters of an authorization request, as the schemas read them. */
export interface AuthorizationParams {
  client_id?: string | undefined;
  redirect_uri?: string | undefined;
  response_type?: string | undefined;
  state?: string | undefined;
}

export type ParsedRequest =
  | { ok: true; client: Client; ownerAccountId: string | null; request: AuthorizationRequest }
  | { ok: false; title: string; message: string };

/**
 * Checks an authorization request (RFC 6749 section 4.1.1). Any problem is shown on an error
 * page, never redirected: an unknown client or unregistered redirect_uri cannot be trusted
 * with a redirect (section 4.1.2.1), and production shows a page for a bad response_type too.
 */
export async function parseAuthorizationRequest(
  deps: ClientsDeps,
  params: AuthorizationParams,
): Promise<ParsedRequest> {
  const fail = (title: string, message: string): ParsedRequest => ({ ok: false, title, message });
  const clientId = params.client_id;
  if (clientId === undefined || clientId === '')
    return fail(
      'Invalid sign-in request',
      'client_id is missing: the sign-in link must carry the client_id of a registered application',
    );
  const found = await findClientAndOwner(deps, clientId);
  if (!found)
    return fail('Unknown application', `No application is registered with client_id ${JSON.stringify(clientId)}`);
  const { client, ownerAccountId } = found;
  const redirectUri = params.redirect_uri;
  if (redirectUri === undefined || redirectUri === '') {
    return fail(
      'Invalid sign-in request',
      `redirect_uri is missing: give one of the redirect URIs registered for ${client.applicationName}`,
    );
  }
  if (!client.redirectUris.includes(redirectUri)) {
    // SANDBOX: the page lists the registered URIs to help partners fix their configuration.
    return fail(
      'Redirect URI not registered',
      `redirect_uri ${JSON.stringify(redirectUri)} is not registered for ${client.applicationName}; registered: ${client.redirectUris.join(', ')}`,
    );
  }
  const responseType = params.response_type;
  if (responseType !== 'code') {
    return fail(
      'Unsupported response type',
      `response_type must be "code" (the authorization-code flow); ${responseType === undefined ? 'it is missing' : `got ${JSON.stringify(responseType)}`}`,
    );
  }
  return { ok: true, client, ownerAccountId, request: { clientId, redirectUri, state: params.state ?? null } };
}

/** The sign-in page of an authorization request. */
export function loginUrl(request: AuthorizationRequest): string {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
  });
  if (request.state !== null) query.set('state', request.state);
  return `/login?${query.toString()}`;
}

/** The hidden fields that carry an authorization request through a form. */
export const requestFields = (request: AuthorizationRequest): Record<string, string | null> => ({
  response_type: 'code',
  client_id: request.clientId,
  redirect_uri: request.redirectUri,
  state: request.state,
});

/** Where the browser goes back to the client: its redirect URI with `params` and the request's state. */
export function redirectBack(request: AuthorizationRequest, params: Record<string, string>): string {
  const target = new URL(request.redirectUri);
  for (const [name, value] of Object.entries(params)) target.searchParams.set(name, value);
  if (request.state !== null) target.searchParams.set('state', request.state);
  return target.toString();
}

/** The CSRF purposes of the authorization host's forms; a consent token names the client and redirect URI it answers for. */
export const SIGN_IN_FORM = 'sign-in';
export const consentForm = (request: AuthorizationRequest): string =>
  `consent\n${request.clientId}\n${request.redirectUri}`;

/**
 * SANDBOX: production has no consent page. On a sandbox shared by partners who do not know each
 * other, a code for a client that another account registered would hand this user's account to
 * that account's owner (who chose the redirect URI), so the user is asked first. A client of the
 * user's own account, or of the fixtures (the demos' demo-client), needs no consent.
 */
export const needsConsent = (parsed: { ownerAccountId: string | null }, user: DeepReadonly<UserRecord>): boolean =>
  parsed.ownerAccountId !== null && parsed.ownerAccountId !== user.accountId;
