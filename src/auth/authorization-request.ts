import { findClient, type Client, type ClientsDeps } from './clients.js';

/**
 * The authorization request a form carries through its hidden fields. `scope` and the PKCE
 * challenge change nothing the sandbox issues (it has no scopes and no PKCE), but they are part
 * of the request: carried, and bound into the consent page's token with the rest.
 */
export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  state: string | null;
  scope: string | null;
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
}

/** The parameters of an authorization request, as the schemas read them. */
export interface AuthorizationParams {
  client_id?: string | undefined;
  redirect_uri?: string | undefined;
  response_type?: string | undefined;
  state?: string | undefined;
  scope?: string | undefined;
  code_challenge?: string | undefined;
  code_challenge_method?: string | undefined;
}

export type ParsedRequest =
  { ok: true; client: Client; request: AuthorizationRequest } | { ok: false; title: string; message: string };

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
  const client = await findClient(deps, clientId);
  if (!client)
    return fail('Unknown application', `No application is registered with client_id ${JSON.stringify(clientId)}`);
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
  return {
    ok: true,
    client,
    request: {
      clientId,
      redirectUri,
      state: params.state ?? null,
      scope: params.scope ?? null,
      codeChallenge: params.code_challenge ?? null,
      codeChallengeMethod: params.code_challenge_method ?? null,
    },
  };
}

/** The hidden fields that carry an authorization request through a form (a parameter it lacks, none). */
export const requestFields = (request: AuthorizationRequest): Record<string, string | null> => ({
  response_type: 'code',
  client_id: request.clientId,
  redirect_uri: request.redirectUri,
  state: request.state,
  scope: request.scope,
  code_challenge: request.codeChallenge,
  code_challenge_method: request.codeChallengeMethod,
});

/** The sign-in page of an authorization request. */
export function loginUrl(request: AuthorizationRequest): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(requestFields(request))) if (value !== null) query.set(name, value);
  return `/login?${query.toString()}`;
}

/** Where the browser goes back to the client: its redirect URI with `params` and the request's state. */
export function redirectBack(request: AuthorizationRequest, params: Record<string, string>): string {
  const target = new URL(request.redirectUri);
  for (const [name, value] of Object.entries(params)) target.searchParams.set(name, value);
  if (request.state !== null) target.searchParams.set('state', request.state);
  return target.toString();
}

/** The CSRF purpose of the sign-in form (the consent page's token is consent-token.ts's). */
export const SIGN_IN_FORM = 'sign-in';
