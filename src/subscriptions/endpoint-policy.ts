import { AppError, invalidParameter } from '../core/errors.js';
import { isLocalHttpHost } from '../core/loopback.js';
import type { AddressGuard, AddressRefusal } from '../webhooks/index.js';

/** Which subscription endpoints are accepted (ENDPOINT_POLICY). */
export type EndpointPolicy = 'https-only' | 'https-or-loopback' | 'any';

const MAX_ENDPOINT_LENGTH = 2048;
/** How long a subscription waits for its endpoint's name to resolve before leaving the judgement to the connection. */
export const ENDPOINT_RESOLVE_TIMEOUT_MS = 2000;

/** Whether a URL is this sandbox's own relay endpoint (`water-sandbox listen`): of the calling account, of another, or neither. */
export type RelayEndpointCheck = (url: URL) => 'own' | 'foreign' | null;

export interface EndpointRules {
  policy: EndpointPolicy;
  /** BLOCK_PRIVATE_ENDPOINTS: with it, `addresses` judges the host. */
  blockPrivate: boolean;
  addresses: Pick<AddressGuard, 'checkHost'>;
}

/** Which rule refused an endpoint, for the operator's metrics and log. */
export interface EndpointRefusal {
  rule: 'ENDPOINT_POLICY' | 'BLOCK_PRIVATE_ENDPOINTS';
  /** The policy, or the address range. */
  range: string;
}

/** The 400 of an endpoint a policy refused (naming `endpoint` and the rule), with the rule for the operator's view. */
export class EndpointRefusedError extends AppError {
  constructor(
    message: string,
    readonly refusal: EndpointRefusal,
  ) {
    super(400, 'invalid_parameter', message, { details: { parameter: 'endpoint' } });
  }
}

/**
 * Checks a subscription endpoint against ENDPOINT_POLICY and BLOCK_PRIVATE_ENDPOINTS. Returns
 * the normalised URL or throws a 400 naming `endpoint` and the rule (an EndpointRefusedError
 * when a policy refused it). The calling account's relay endpoints pass every policy:
 * they are the sandbox's own URL. A name is resolved once here, so a partner learns at once that
 * it leads to a private address; what protects is the check of every connection (the sender's).
 */
export async function checkEndpoint(
  endpoint: unknown,
  rules: EndpointRules,
  relay?: RelayEndpointCheck,
): Promise<string> {
  const fail = (rule: string): AppError => invalidParameter('endpoint', rule);
  const refuse = (message: string, refusal: EndpointRefusal): EndpointRefusedError =>
    new EndpointRefusedError(message, refusal);
  if (endpoint === undefined)
    throw fail('endpoint is required: the https URL that receives the confirmation and alert POSTs');
  if (typeof endpoint !== 'string') throw fail(`endpoint must be a string URL; got ${JSON.stringify(endpoint)}`);
  if (endpoint.length > MAX_ENDPOINT_LENGTH) throw fail(`endpoint must be at most ${MAX_ENDPOINT_LENGTH} characters`);
  // `localhost:8080/hooks` parses as the scheme `localhost:`: without `scheme://` it is not the URL that was meant.
  if (!/^[a-z][a-z\d+.-]*:\/\//i.test(endpoint) || !URL.canParse(endpoint))
    throw fail(
      `endpoint must be an absolute URL such as https://example.com/webhooks; got ${JSON.stringify(endpoint)}`,
    );
  const url = new URL(endpoint);
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw fail(`endpoint must use https; got ${url.protocol.replace(':', '')}`);
  if (url.hash) throw fail('endpoint must not have a #fragment');
  const relayed = relay?.(url) ?? null;
  if (relayed === 'own') return url.toString();
  if (relayed === 'foreign')
    throw fail(
      'endpoint is a relay endpoint of another account: use the one water-sandbox listen prints for this account',
    );
  if (url.protocol === 'http:') {
    if (rules.policy === 'https-only')
      throw refuse('endpoint must use https (ENDPOINT_POLICY=https-only, as production requires)', {
        rule: 'ENDPOINT_POLICY',
        range: rules.policy,
      });
    // SANDBOX: production requires https; plain http is accepted for loopback receivers so partners can test locally.
    if (rules.policy === 'https-or-loopback' && !isLocalHttpHost(url.hostname)) {
      throw refuse(
        'endpoint must use https; plain http is accepted only for localhost, 127.0.0.1 and [::1] (ENDPOINT_POLICY=https-or-loopback)',
        { rule: 'ENDPOINT_POLICY', range: rules.policy },
      );
    }
  }
  if (rules.blockPrivate) {
    const refusal: AddressRefusal | null = await rules.addresses.checkHost(url.hostname, ENDPOINT_RESOLVE_TIMEOUT_MS);
    if (refusal) {
      throw refuse(
        `endpoint must be a public address on this hosted sandbox (BLOCK_PRIVATE_ENDPOINTS=true): ${refusal.reason}`,
        { rule: 'BLOCK_PRIVATE_ENDPOINTS', range: refusal.range },
      );
    }
  }
  return url.toString();
}
