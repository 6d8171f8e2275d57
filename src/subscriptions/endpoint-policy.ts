import { isIP } from 'node:net';

import { invalidParameter, type AppError } from '../core/errors.js';

/** Which subscription endpoints are accepted (ENDPOINT_POLICY). */
export type EndpointPolicy = 'https-only' | 'https-or-loopback' | 'any';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);
const MAX_ENDPOINT_LENGTH = 2048;

function isLoopbackOrPrivate(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) {
    const [a = 0, b = 0] = host.split('.').map(Number);
    return a === 127 || a === 10 || a === 0 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254) || (a === 100 && b >= 64 && b <= 127);
  }
  if (isIP(host) === 6) {
    return host === '::1' || host === '::' || host.startsWith('fc') || host.startsWith('fd') || host.startsWith('fe80') || host.startsWith('::ffff:');
  }
  return false;
}

/** Whether a URL is this sandbox's own relay endpoint (`water-sandbox listen`): of the calling account, of another, or neither. */
export type RelayEndpointCheck = (url: URL) => 'own' | 'foreign' | null;

/**
 * Checks a subscription endpoint against ENDPOINT_POLICY and BLOCK_PRIVATE_ENDPOINTS.
 * Returns the normalised URL or throws a 400 naming `endpoint` and the rule. The calling
 * account's relay endpoints pass every policy: they are the sandbox's own URL.
 */
export function checkEndpoint(endpoint: unknown, policy: EndpointPolicy, blockPrivate: boolean, relay?: RelayEndpointCheck): string {
  const fail = (rule: string): AppError => invalidParameter('endpoint', rule);
  if (endpoint === undefined) throw fail('endpoint is required: the https URL that receives the confirmation and alert POSTs');
  if (typeof endpoint !== 'string') throw fail(`endpoint must be a string URL; got ${JSON.stringify(endpoint)}`);
  if (endpoint.length > MAX_ENDPOINT_LENGTH) throw fail(`endpoint must be at most ${MAX_ENDPOINT_LENGTH} characters`);
  // `localhost:8080/hooks` parses as the scheme `localhost:`: without `scheme://` it is not the URL that was meant.
  if (!/^[a-z][a-z\d+.-]*:\/\//i.test(endpoint) || !URL.canParse(endpoint)) throw fail(`endpoint must be an absolute URL such as https://example.com/webhooks; got ${JSON.stringify(endpoint)}`);
  const url = new URL(endpoint);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw fail(`endpoint must use https; got ${url.protocol.replace(':', '')}`);
  if (url.hash) throw fail('endpoint must not have a #fragment');
  const relayed = relay?.(url) ?? null;
  if (relayed === 'own') return url.toString();
  if (relayed === 'foreign') throw fail('endpoint is a relay endpoint of another account: use the one water-sandbox listen prints for this account');
  if (url.protocol === 'http:') {
    if (policy === 'https-only') throw fail('endpoint must use https (ENDPOINT_POLICY=https-only, as production requires)');
    // SANDBOX: production requires https; plain http is accepted for loopback receivers so partners can test locally.
    if (policy === 'https-or-loopback' && !LOOPBACK_NAMES.has(url.hostname)) {
      throw fail('endpoint must use https; plain http is accepted only for localhost, 127.0.0.1 and [::1] (ENDPOINT_POLICY=https-or-loopback)');
    }
  }
  if (blockPrivate && isLoopbackOrPrivate(url.hostname)) {
    throw fail('endpoint must not point at a loopback or private address on this hosted sandbox (BLOCK_PRIVATE_ENDPOINTS=true)');
  }
  return url.toString();
}
