import { BlockList, isIP } from 'node:net';

/**
 * What counts as loopback, decided here only. There are two answers, on purpose:
 *
 * - **This machine** (`isLoopbackHost`): a loopback name or a loopback address, in any spelling.
 *   It tells where a host the operator names leads: PUBLIC_URL (a loopback one keeps the sandbox
 *   local, any other makes it hosted), HOST (the start-up message says whether other machines
 *   reach it), a container engine's host (Testcontainers), and the names a webhook may never
 *   connect to.
 * - **Where a partner's URL may use plain http** (`isLocalHttpHost`): exactly `localhost`,
 *   `127.0.0.1` and `[::1]`, the hosts of RFC 8252 sections 7.3 and 8.3 that a native app's
 *   redirect URI uses, and the three the messages and docs/api.md list. Any other loopback host
 *   (`127.0.0.2`, `app.localhost`) must use https there, like any host.
 *
 * The address a webhook's socket connects to is judged more widely again, by
 * webhooks/address-policy.ts: every address that is not public, loopback among them.
 */

const LOOPBACK_ADDRESSES = new BlockList();
LOOPBACK_ADDRESSES.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK_ADDRESSES.addAddress('::1', 'ipv6');

/** A URL host without the brackets of an IPv6 literal (`[::1]` → `::1`); any other host as it is. */
export const unbracketed = (host: string): string =>
  host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;

/**
 * `localhost` and `*.localhost`, in any case and with or without the root's trailing dot:
 * loopback by definition (RFC 6761 section 6.3), whatever a resolver says.
 */
export function isLoopbackName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/** An address in 127.0.0.0/8 or ::1, as a URL host (`[::1]`) or bare, IPv4-mapped forms included (`::ffff:127.0.0.1`). */
export function isLoopbackAddress(host: string): boolean {
  const address = unbracketed(host);
  const family = isIP(address);
  return family !== 0 && LOOPBACK_ADDRESSES.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/** Whether a host (a name or an address, as a URL spells it or bare) means this machine. */
export const isLoopbackHost = (host: string): boolean => isLoopbackName(host) || isLoopbackAddress(host);

/** The hosts where a partner's URL may use plain http, as a URL's `hostname` spells them. */
export const LOCAL_HTTP_HOSTS: readonly string[] = Object.freeze(['localhost', '127.0.0.1', '[::1]']);

/** Whether a URL's `hostname` is one of LOCAL_HTTP_HOSTS, exactly (see above for why it is narrower than isLoopbackHost). */
export const isLocalHttpHost = (hostname: string): boolean => LOCAL_HTTP_HOSTS.includes(hostname);
