import { AppError } from '../core/errors.js';

/** The realm of every Bearer challenge of /v1 and /sandbox. */
export const BEARER_REALM = 'water-sandbox';

/** What /v1 and /sandbox expect, as the messages spell it out. */
export const ACCOUNT_AUTHORIZATION = 'Authorization: Bearer <API key or access token>';

/**
 * The RFC 6750 section 3 challenge. With no credential (or one in another scheme) it carries
 * no error code (section 3.1); for a credential that was refused, error="invalid_token", or
 * "insufficient_scope" for a valid one that may not make this call.
 */
export function bearerChallenge(refused?: {
  description: string;
  error?: 'invalid_token' | 'insufficient_scope';
}): string {
  const realm = `Bearer realm="${BEARER_REALM}"`;
  if (!refused) return realm;
  // Section 3: error_description may only hold printable ASCII other than '"' and '\'.
  const description = refused.description.replace(/"/g, "'").replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, ' ');
  return `${realm}, error="${refused.error ?? 'invalid_token'}", error_description="${description}"`;
}

/** 401: no usable credential was sent. The message says what to send. */
export const missingCredentials = (message: string): AppError =>
  new AppError(401, 'missing_credentials', message, { headers: { 'WWW-Authenticate': bearerChallenge() } });

/**
 * A credential that was sent but is not valid (unknown, expired, revoked). 403 is production's
 * status for it, where RFC 6750 would say 401; RFC 9110 section 11.6.1 allows the challenge
 * on any status, so clients that read it still learn why.
 */
export const refusedCredentials = (code: string, message: string): AppError =>
  new AppError(403, code, message, { headers: { 'WWW-Authenticate': bearerChallenge({ description: message }) } });

/**
 * 403 insufficient_scope (RFC 6750 section 3.1): a valid credential that may not make this call,
 * the message saying why and what may.
 */
export const insufficientScope = (message: string): AppError =>
  new AppError(403, 'insufficient_scope', message, {
    headers: { 'WWW-Authenticate': bearerChallenge({ description: message, error: 'insufficient_scope' }) },
  });

// An auth-scheme is an RFC 9110 token; a longer or odder first word may be a secret, and is not echoed.
const SCHEME_NAME = /^[A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]{0,23}$/;

/** What almost every request sends; anything else takes the careful path of readBearerCredential, for its message. */
const PLAIN_BEARER = /^\s*bearer\s+(\S+)\s*$/i;

/**
 * The credential of `Authorization: Bearer <credential>` (the scheme name in any case), or the
 * 401 that says what is wrong with the header: missing, empty, no scheme, another scheme,
 * Bearer with no credential or with several words. The credential itself is never echoed.
 * `expected` is the header as the caller should send it, e.g. ACCOUNT_AUTHORIZATION.
 */
export function readBearerCredential(header: string | undefined, expected: string): string {
  const plain = header === undefined ? undefined : PLAIN_BEARER.exec(header)?.[1];
  if (plain !== undefined) return plain;
  if (header === undefined) throw missingCredentials(`The Authorization header is missing; send "${expected}"`);
  const words = header
    .trim()
    .split(/\s+/)
    .filter((w) => w !== '');
  const [scheme, credential, ...rest] = words;
  if (scheme === undefined) throw missingCredentials(`The Authorization header is empty; send "${expected}"`);
  if (scheme.toLowerCase() !== 'bearer') {
    if (credential === undefined) {
      throw missingCredentials(
        `The Authorization header has a value but no scheme; put "Bearer " before it: "${expected}" (the value is not repeated here)`,
      );
    }
    const named = SCHEME_NAME.test(scheme) ? `the ${scheme} scheme` : 'a scheme other than Bearer';
    throw missingCredentials(
      `The Authorization header uses ${named}; this call takes the Bearer scheme: "${expected}"`,
    );
  }
  if (credential === undefined)
    throw missingCredentials(`The Authorization header has the Bearer scheme but no key; send "${expected}"`);
  if (rest.length > 0) {
    throw missingCredentials(
      `The Authorization header has ${rest.length + 1} words after Bearer; the credential is one word with no spaces: "${expected}"`,
    );
  }
  return credential;
}
