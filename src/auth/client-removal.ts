import { capReached, notFound } from '../core/errors.js';
import type { AccountDoc } from '../store/data.js';

/**
 * The bound on an account's registered OAuth clients (MAX_OAUTH_CLIENTS; 0 = no cap), and the
 * way to make room: deleting a client with everything issued to it.
 */

export function ensureRoomForClient(doc: AccountDoc, maxClients: number): void {
  if (maxClients === 0 || doc.oauthClients.length < maxClients) return;
  throw capReached(
    'MAX_OAUTH_CLIENTS',
    `This account has ${doc.oauthClients.length} OAuth clients registered, the most this sandbox allows (MAX_OAUTH_CLIENTS=${maxClients}); delete one (DELETE /sandbox/oauth-clients/{clientId}) before registering another`,
  );
}

/**
 * Deletes a client the account registered, with its authorization codes and its access and
 * refresh tokens: calls with those tokens are then refused as unknown. Returns how many codes
 * and tokens went with it. A client of another account, or of the fixtures, is a 404.
 */
export function removeClient(doc: AccountDoc, clientId: string): { removedTokens: number } {
  const before = doc.oauthClients.length;
  doc.oauthClients = doc.oauthClients.filter((c) => c.clientId !== clientId);
  if (doc.oauthClients.length === before)
    throw notFound(
      `No OAuth client ${JSON.stringify(clientId)} registered by this account; GET /sandbox/oauth-clients lists them`,
    );
  const count = doc.authorizationCodes.length + doc.accessTokens.length + doc.refreshTokens.length;
  doc.authorizationCodes = doc.authorizationCodes.filter((c) => c.clientId !== clientId);
  doc.accessTokens = doc.accessTokens.filter((t) => t.clientId !== clientId);
  doc.refreshTokens = doc.refreshTokens.filter((t) => t.clientId !== clientId);
  return { removedTokens: count - doc.authorizationCodes.length - doc.accessTokens.length - doc.refreshTokens.length };
}
