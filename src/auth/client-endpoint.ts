import type { Request } from 'express';

import { OAuthError, oauthError } from '../core/errors.js';
import { clientAddressKey } from '../http/client-address.js';
import type { CountedAttempt } from './throttle.js';

/**
 * What the endpoints a client authenticates at share (the token endpoint, and revocation): a
 * form body, answers that are never cached, and the failed-request limit per client address.
 * The attempt is counted before the client and its token or grant are checked (a guess costs its
 * count at once) and taken back unless it was a guess: a wrong client secret, code or token.
 */
export async function clientEndpoint(
  throttle: { begin(address: string): Promise<CountedAttempt> },
  req: Request,
  res: { set(headers: Record<string, string>): unknown },
  form: { request: string; needs: string },
  handle: () => Promise<void>,
): Promise<void> {
  res.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
  if (!req.is('application/x-www-form-urlencoded'))
    throw oauthError(
      'invalid_request',
      `The ${form.request} request must have an application/x-www-form-urlencoded body with ${form.needs}`,
    );
  const attempt = await throttle.begin(clientAddressKey(req));
  let guess = false;
  try {
    await handle();
  } catch (error) {
    guess =
      error instanceof OAuthError && ['invalid_client', 'invalid_grant', 'unauthorized_client'].includes(error.code);
    throw error;
  } finally {
    if (!guess) await attempt.takeBack();
  }
}
