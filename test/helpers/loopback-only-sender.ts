import { isIP } from 'node:net';

import { AddressGuard, judgeAddress, type Resolve, type ResolvedAddress } from '../../src/webhooks/address-policy.js';
import { createWebhookSender, type WebhookSender } from '../../src/webhooks/sender.js';

/** What the sender records instead of contacting a host that is not on this machine. */
export const NOT_CONTACTED = 'not contacted: the test suite only sends to loopback receivers';

/** A name's answers: fixed, or a function asked at each resolution (a name that changes its answer). */
export type TestName = readonly ResolvedAddress[] | (() => readonly ResolvedAddress[]);

/**
 * Name resolution for tests, which never asks DNS: `localhost` is 127.0.0.1 (where the test
 * receivers listen), `names` add more, and any other name fails as NOT_CONTACTED.
 */
export function testResolve(names: Record<string, TestName> = {}): Resolve {
  const known: Record<string, TestName> = { localhost: [{ address: '127.0.0.1', family: 4 }], ...names };
  return (hostname) => {
    const answer = Object.hasOwn(known, hostname) ? known[hostname] : undefined;
    if (answer === undefined) return Promise.reject(new Error(NOT_CONTACTED));
    return Promise.resolve([...(typeof answer === 'function' ? answer() : answer)]);
  };
}

/** Whether a URL host is an address outside loopback (IPv4-mapped and NAT64 forms are judged by the address they carry). */
function addressOffTheMachine(host: string): boolean {
  const address = host.replace(/^\[|\]$/g, '');
  return isIP(address) !== 0 && judgeAddress(address)?.range !== 'loopback';
}

/**
 * The sandbox's own sender, made as deps.ts makes it for `config` (with BLOCK_PRIVATE_ENDPOINTS'
 * connect-time check when it is on), resolving names with `resolve` (the test resolver: no DNS).
 * A host that is an address outside loopback is answered as unreachable without a connection,
 * unless the check is on and refuses it first, so tests never send traffic off the machine.
 */
export function loopbackOnlySenderFor(
  config: { readonly blockPrivateEndpoints: boolean },
  resolve: Resolve = testResolve(),
): WebhookSender {
  const guard = config.blockPrivateEndpoints ? new AddressGuard({ resolve }) : null;
  const real = createWebhookSender({ guard, resolve });
  return {
    async send(request) {
      const host = new URL(request.url).hostname;
      if (addressOffTheMachine(host) && !guard?.checkLiteral(host))
        return { statusCode: null, latencyMs: 0, error: NOT_CONTACTED, responseExcerpt: null, bodyIsJson: false };
      return real.send(request);
    },
  };
}

/** The sender of a sandbox without BLOCK_PRIVATE_ENDPOINTS, for tests that build their own apps. */
export const loopbackOnlySender: WebhookSender = loopbackOnlySenderFor({ blockPrivateEndpoints: false });
