import { timingSafeEqual } from 'node:crypto';

import { oauthError } from '../core/errors.js';
import type { DeepReadonly, OAuthClientRecord } from '../store/data.js';
import type { Store } from '../store/store.js';

export type Client = DeepReadonly<OAuthClientRecord>;

export interface ClientsDeps {
  store: Store;
  /** The OAuth clients of the fixtures, by clientId: shared by every account. */
  fixtureClients: ReadonlyMap<string, OAuthClientRecord>;
}

/** A client of the fixtures, or one registered by an account (found through the index; its registration names that account). */
export async function findClient(deps: ClientsDeps, clientId: string): Promise<Client | undefined> {
  const fixed = deps.fixtureClients.get(clientId);
  if (fixed) return fixed;
  const owner = await deps.store.accounts.findByKey('oauthClient', clientId);
  return owner?.doc.oauthClients.find((c) => c.clientId === clientId);
}

/** Compares secrets in constant time (for equal lengths). */
export function secretsEqual(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** application/x-www-form-urlencoded decoding of one value: `+` is a space, then percent-decoding. */
function formDecode(value: string): string | null {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/**
 * Reads `Authorization: Basic ...` of a token request. RFC 6749 section 2.3.1: the client id
 * and secret are each form-urlencoded, joined by ":", then base64-encoded; we decode in the
 * reverse order, so an id or secret may contain ":", "+", "%" or any other character.
 * Returns null when there is no Authorization header.
 */
export function parseBasicCredentials(header: string | undefined): { clientId: string; clientSecret: string } | null {
  if (header === undefined) return null;
  const match = /^\s*Basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i.exec(header);
  if (!match?.[1]) {
    throw oauthError(
      'invalid_client',
      'The Authorization header of a token request must be "Basic base64(client_id:client_secret)"',
    );
  }
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) {
    throw oauthError(
      'invalid_client',
      'The Basic credentials must be base64("client_id:client_secret"); the ":" is missing',
    );
  }
  const clientId = formDecode(decoded.slice(0, colon));
  const clientSecret = formDecode(decoded.slice(colon + 1));
  if (clientId === null || clientSecret === null) {
    throw oauthError(
      'invalid_client',
      'The Basic credentials are not valid application/x-www-form-urlencoded values (RFC 6749 section 2.3.1); a "%" must start a %XX escape',
    );
  }
  return { clientId, clientSecret };
}

/**
 * Authenticates the client of a token request: HTTP Basic (what production's example uses)
 * or client_id and client_secret in the body (client_secret_post), never both (RFC 6749
 * section 2.3). Returns the client or throws invalid_client / invalid_request.
 */
export async function authenticateClient(
  deps: ClientsDeps,
  authorization: string | undefined,
  body: { clientId: string | undefined; clientSecret: string | undefined },
): Promise<Client> {
  const basic = parseBasicCredentials(authorization);
  let clientId: string;
  let clientSecret: string;
  if (basic) {
    if (body.clientSecret !== undefined) {
      throw oauthError(
        'invalid_request',
        'Authenticate the client one way only: the Authorization header or client_secret in the body, not both',
      );
    }
    if (body.clientId !== undefined && body.clientId !== basic.clientId) {
      throw oauthError(
        'invalid_request',
        `client_id in the body (${JSON.stringify(body.clientId)}) differs from the client in the Authorization header (${JSON.stringify(basic.clientId)})`,
      );
    }
    ({ clientId, clientSecret } = basic);
  } else {
    if (body.clientId === undefined) {
      throw oauthError(
        'invalid_client',
        'Client authentication is missing: send "Authorization: Basic base64(client_id:client_secret)", or client_id and client_secret in the body',
      );
    }
    if (body.clientSecret === undefined) {
      throw oauthError(
        'invalid_client',
        'client_secret is missing: send it in the Authorization header (Basic) or in the body',
      );
    }
    clientId = body.clientId;
    clientSecret = body.clientSecret;
  }
  const client = await findClient(deps, clientId);
  // SANDBOX: the errors say which part failed, to help partners debug their configuration.
  if (!client) throw oauthError('invalid_client', `No client is registered with client_id ${JSON.stringify(clientId)}`);
  if (!secretsEqual(clientSecret, client.clientSecret)) {
    throw oauthError('invalid_client', `The client_secret is wrong for client_id ${JSON.stringify(clientId)}`);
  }
  return client;
}
