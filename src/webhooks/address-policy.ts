import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';

import ipaddr from 'ipaddr.js';

import { isLoopbackName, unbracketed } from '../core/loopback.js';

/** One address a host name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Name resolution, injected so tests can make a name resolve to anything (and the second time to something else). */
export type Resolve = (hostname: string) => Promise<ResolvedAddress[]>;

/** The machine's own resolver (/etc/hosts, then DNS), as a connection would use it. */
export const systemResolve: Resolve = async (hostname) => {
  const addresses = await dnsLookup(hostname, { all: true });
  return addresses.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

/** The setting whose rule refuses these addresses, named in every refusal. */
export const ADDRESS_RULE = 'BLOCK_PRIVATE_ENDPOINTS';

/** Why an address may not be reached: the range it is in, in the words of ipaddr.js, and in the log's. */
export interface AddressRefusal {
  /** The host as the URL names it (a name or an address). */
  host: string;
  /** The address that would have been connected to. */
  address: string;
  /** ipaddr.js's name of the range (loopback, private, linkLocal, ...): the metrics label. */
  range: string;
  /** `vm resolves to 127.0.0.1, a loopback address`. */
  reason: string;
  /** What the delivery log records: `blocked: vm resolves to 127.0.0.1, a loopback address (BLOCK_PRIVATE_ENDPOINTS)`. */
  message: string;
}

const RANGE_WORDS: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  linkLocal: 'a link-local address',
  uniqueLocal: 'a unique-local address',
  carrierGradeNat: 'a carrier-grade NAT address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  unspecified: 'an unspecified address',
  reserved: 'a reserved address (documentation, benchmarking or future use)',
  benchmarking: 'a benchmarking address',
  deprecatedSiteLocal: 'a site-local address (deprecated, private like fc00::/7)',
};
const describeRange = (range: string): string => RANGE_WORDS[range] ?? `a special-purpose address (${range})`;

/** IPv6 forms that carry an IPv4 address in their last 32 bits and reach it: judged by that address. */
const EMBEDDING_V4: readonly { prefix: [ipaddr.IPv6, number]; words: string }[] = [
  { prefix: ipaddr.IPv6.parseCIDR('::ffff:0:0/96'), words: 'an IPv4-mapped form of' },
  { prefix: ipaddr.IPv6.parseCIDR('::ffff:0:0:0/96'), words: 'an IPv4-translated form of' },
  { prefix: ipaddr.IPv6.parseCIDR('64:ff9b::/96'), words: 'a NAT64 form of' },
];

const v4Of = (bytes: readonly number[]): ipaddr.IPv4 => new ipaddr.IPv4(bytes.map((b) => b & 0xff));

/** Null for a public address, else the range and its words (after `prefix`, which names the form). */
const judged = (range: string, prefix = ''): { range: string; words: string } | null =>
  range === 'unicast' ? null : { range, words: `${prefix}${describeRange(range)}` };

/**
 * Deprecated IPv6 forms that carry an IPv4 address (RFC 4291's IPv4-compatible ::/96, 6to4's
 * 2002::/16 with the address in bits 16-47, Teredo's 2001::/32 with the client's address
 * inverted in the last 32 bits). A stack or tunnel that still honours one reaches the IPv4
 * address it carries, and no real endpoint uses them: each is refused, named by the address it
 * carries, and counted under that address's range when the address is not public itself.
 */
const DEPRECATED_V4: readonly {
  prefix: [ipaddr.IPv6, number];
  words: string;
  range: string;
  carried: (bytes: number[]) => ipaddr.IPv4;
}[] = [
  {
    prefix: ipaddr.IPv6.parseCIDR('::/96'),
    words: 'an IPv4-compatible form of',
    range: 'ipv4Compatible',
    carried: (b) => v4Of(b.slice(12)),
  },
  {
    prefix: ipaddr.IPv6.parseCIDR('2002::/16'),
    words: 'a 6to4 form of',
    range: '6to4',
    carried: (b) => v4Of(b.slice(2, 6)),
  },
  {
    prefix: ipaddr.IPv6.parseCIDR('2001::/32'),
    words: 'a Teredo form of',
    range: 'teredo',
    carried: (b) => v4Of(b.slice(12).map((x) => ~x)),
  },
];

/**
 * Whether a webhook may connect to `address`, and if not, why. Only ordinary public unicast
 * addresses pass: loopback, private, link-local, unique-local, site-local, carrier-grade NAT,
 * multicast, unspecified, broadcast, the documentation and benchmarking ranges and every other
 * special-purpose range of ipaddr.js are refused. IPv4-mapped, IPv4-translated and NAT64
 * addresses are judged by the IPv4 address they carry; the deprecated forms that carry one
 * (IPv4-compatible, 6to4, Teredo) are refused whatever they carry, named by it.
 */
export function judgeAddress(address: string): { range: string; words: string } | null {
  if (!ipaddr.isValid(address)) return { range: 'invalid', words: 'not an IP address' };
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return judged(parsed.range());
  // ipaddr.js reads every dotted tail as IPv4-mapped (`::127.0.0.1` as ::ffff:7f00:1); the URL parser spells it as a URL host would.
  const v6 = address.includes('.')
    ? ipaddr.IPv6.parse(new URL(`http://[${address}]/`).hostname.slice(1, -1))
    : (parsed as ipaddr.IPv6);
  const embedding = EMBEDDING_V4.find(({ prefix }) => v6.match(prefix));
  if (embedding) {
    const v4 = ipaddr.IPv4.parse(v6.toByteArray().slice(12).join('.'));
    return judged(v4.range(), `${embedding.words} ${v4.toString()}, `);
  }
  const own = v6.range();
  // :: and ::1 are in ::/96 too, and keep their own names.
  const deprecated =
    own === 'unspecified' || own === 'loopback' ? undefined : DEPRECATED_V4.find(({ prefix }) => v6.match(prefix));
  if (deprecated) {
    const v4 = deprecated.carried(v6.toByteArray());
    const range = v4.range();
    const form = `${deprecated.words} ${v4.toString()}, `;
    return range === 'unicast'
      ? { range: deprecated.range, words: `${form}a deprecated form no endpoint uses` }
      : judged(range, form);
  }
  return judged(own);
}

const refusal = (host: string, address: string, range: string, reason: string): AddressRefusal => ({
  host,
  address,
  range,
  reason,
  message: `blocked: ${reason} (${ADDRESS_RULE})`,
});

/** The refusal of a host that is an address itself (`127.0.0.1`, `[::ffff:7f00:1]`), or null. */
function refusalOfLiteral(host: string, address: string): AddressRefusal | null {
  const judged = judgeAddress(address);
  return judged && refusal(host, address, judged.range, `${host} is ${judged.words}`);
}

function refusalOfResolved(host: string, address: string): AddressRefusal | null {
  const judged = judgeAddress(address);
  return judged && refusal(host, address, judged.range, `${host} resolves to ${address}, ${judged.words}`);
}

/** `localhost` and `*.localhost` are loopback by definition (RFC 6761 section 6.3), whatever a resolver says. */
export function refusalOfLoopbackName(host: string): AddressRefusal | null {
  return isLoopbackName(host) ? refusal(host, '', 'loopback', `${host} is a loopback name`) : null;
}

/** Raised inside a connection attempt that the guard refused; the sender turns it into a delivery log entry. */
export class BlockedAddressError extends Error {
  readonly code = 'ERR_BLOCKED_ADDRESS';

  constructor(readonly refusal: AddressRefusal) {
    super(refusal.message);
    this.name = 'BlockedAddressError';
  }
}

export interface AddressGuardOptions {
  resolve?: Resolve;
  /** Addresses that count as public although they are not: only tests and the bench, whose receivers are on loopback. */
  treatAsPublic?: (address: string) => boolean;
}

/**
 * BLOCK_PRIVATE_ENDPOINTS, applied where it matters: on the address a connection actually goes
 * to. `lookup` is handed to the socket (node:net's connect-time hook): it resolves the name once,
 * refuses the attempt when any of its addresses is not public, and gives the socket those same
 * addresses, so a name that answers differently the next time (DNS rebinding) gains nothing.
 * Hosts that are addresses themselves never reach a lookup and are judged by `checkLiteral`.
 */
export class AddressGuard {
  readonly #resolve: Resolve;
  readonly #treatAsPublic: (address: string) => boolean;

  constructor(options: AddressGuardOptions = {}) {
    this.#resolve = options.resolve ?? systemResolve;
    this.#treatAsPublic = options.treatAsPublic ?? (() => false);
  }

  /** The refusal of a URL host that is an IP address (brackets allowed), null when it may be reached or is a name. */
  checkLiteral(host: string): AddressRefusal | null {
    const address = unbracketed(host);
    if (isIP(address) === 0 || this.#treatAsPublic(address)) return null;
    return refusalOfLiteral(host, address);
  }

  /**
   * The refusal of a URL host as far as can be told before connecting: an address, a loopback
   * name, or a name whose addresses now include one that is not public. A name that does not
   * resolve (now, or within `timeoutMs`) is not refused here: the connection's own check decides.
   */
  async checkHost(host: string, timeoutMs: number): Promise<AddressRefusal | null> {
    if (isIP(unbracketed(host)) !== 0) return this.checkLiteral(host);
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), timeoutMs);
      timer.unref();
    });
    const checked = await Promise.race([this.resolveChecked(host).catch(() => null), gaveUp]);
    clearTimeout(timer);
    return checked && 'refusal' in checked ? checked.refusal : null;
  }

  /** Resolves a name and judges every address it has: the refusal of the first that may not be reached, or the addresses. */
  async resolveChecked(host: string): Promise<{ refusal: AddressRefusal } | { addresses: ResolvedAddress[] }> {
    const named = refusalOfLoopbackName(host);
    if (named) return { refusal: named };
    const addresses = await this.#resolve(host);
    for (const { address } of addresses) {
      if (this.#treatAsPublic(address)) continue;
      const refusal = refusalOfResolved(host, address);
      if (refusal) return { refusal };
    }
    return { addresses };
  }

  /** The connect-time hook for node:net (an http.Agent's `lookup`). */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    const wanted = options.family === 4 || options.family === 6 ? options.family : null;
    this.resolveChecked(hostname).then(
      (checked) => {
        if ('refusal' in checked) {
          failLookup(callback, new BlockedAddressError(checked.refusal));
          return;
        }
        deliverLookup(hostname, checked.addresses, wanted, options.all === true, callback);
      },
      (error: unknown) => failLookup(callback, error as NodeJS.ErrnoException),
    );
  };
}

/** A lookup hook that only resolves through `resolve` (no check): an injected resolver with BLOCK_PRIVATE_ENDPOINTS off. */
export function lookupThrough(resolve: Resolve): LookupFunction {
  return (hostname, options, callback) => {
    const wanted = options.family === 4 || options.family === 6 ? options.family : null;
    resolve(hostname).then(
      (addresses) => deliverLookup(hostname, addresses, wanted, options.all === true, callback),
      (error: unknown) => failLookup(callback, error as NodeJS.ErrnoException),
    );
  };
}

/** Fails a lookup: node:net reads no address with an error. */
function failLookup(callback: Parameters<LookupFunction>[2], error: NodeJS.ErrnoException): void {
  callback(error, '', 0);
}

/** Answers node:net's lookup callback in the form it asked for (one address, or all of them). */
function deliverLookup(
  hostname: string,
  addresses: readonly ResolvedAddress[],
  family: 4 | 6 | null,
  all: boolean,
  callback: Parameters<LookupFunction>[2],
): void {
  const usable = family === null ? addresses : addresses.filter((a) => a.family === family);
  const first = usable[0];
  if (first === undefined) {
    const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
    error.code = 'ENOTFOUND';
    failLookup(callback, error);
    return;
  }
  // node:net's callback takes (error, address, family) or, with `all`, (error, addresses).
  if (all) (callback as unknown as (error: null, addresses: ResolvedAddress[]) => void)(null, [...usable]);
  else callback(null, first.address, first.family);
}
