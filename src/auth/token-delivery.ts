import { LimitError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { Dispatcher } from '../webhooks/index.js';
import type { Client } from './clients.js';
import type { TokenResponse } from './tokens.js';

export interface TokenDeliveryDeps {
  config: { readonly tokenDelivery: boolean };
  dispatcher: Dispatcher;
  logger: Logger;
}

/**
 * Production documents that the token response is also POSTed to the redirect URI. It goes
 * through the webhook dispatcher, so it is retried, shows in the account's delivery log, and
 * meets BLOCK_PRIVATE_ENDPOINTS where every webhook does: at connection, on the address the
 * redirect URI resolves to (a refused one is logged as `blocked: ...` and not retried).
 * Nothing here throws: a delivery problem never fails the token request.
 */
export async function deliverTokenResponse(
  deps: TokenDeliveryDeps,
  input: { accountId: string; client: Client; redirectUri: string; response: TokenResponse },
): Promise<void> {
  const { accountId, client, redirectUri, response } = input;
  if (!deps.config.tokenDelivery || !client.postTokenToRedirectUri) return;
  const log = deps.logger.child({ accountId, clientId: client.clientId, redirectUri });
  // A custom scheme (waterapp://callback) names an app on a device, which cannot receive a POST.
  if (!URL.canParse(redirectUri) || !['http:', 'https:'].includes(new URL(redirectUri).protocol)) {
    log.debug('token delivery skipped: the redirect URI is not http(s)');
    return;
  }
  try {
    await deps.dispatcher.enqueue(accountId, [
      { accountId, kind: 'token', subscriptionId: null, locationId: null, target: redirectUri, payload: response },
    ]);
  } catch (error) {
    // A full queue of the account's (MAX_PENDING_DELIVERIES) is the partner's doing, not the sandbox's failure.
    if (error instanceof LimitError)
      log.warn('token delivery not queued: the account has too many deliveries waiting', { limit: error.limit });
    else log.error('token delivery could not be queued', { err: error });
  }
}
