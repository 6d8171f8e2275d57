import type { Request } from 'express';
import ipaddr from 'ipaddr.js';

/**
 * The key of a client address in every per-address limit (account creation, sign-ins, failed
 * sign-ins, failed token requests) and of a login session's holder: an IPv4 address as it is, an IPv4-mapped IPv6 address as its IPv4
 * address, and any other IPv6 address as its /64, the block one subscriber gets (RFC 6177), so
 * a client cannot get 2^64 fresh limits by changing the last 64 bits of its address.
 */
export function addressKey(address: string | undefined): string {
  if (address === undefined || !ipaddr.isValid(address)) return address ?? 'unknown';
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts;
  return `${new ipaddr.IPv6([...parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`;
}

/**
 * The wider network of an IPv6 address: its /48, the block one site is given (RFC 6177), which
 * holds 65,536 /64s; null for IPv4 (an IPv4-mapped address included), whose address is scarce
 * enough to be its own key. A limit counted on this key beside addressKey's stops one site from
 * getting a fresh limit per /64.
 */
export function networkKey(address: string | undefined): string | null {
  if (address === undefined || !ipaddr.isValid(address)) return null;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return null;
  const parts = (parsed as ipaddr.IPv6).parts;
  return `${new ipaddr.IPv6([...parts.slice(0, 3), 0, 0, 0, 0, 0]).toString()}/48`;
}

/** The /48 of an IPv6 address key (addressKey's `<prefix>::/64`); null for an IPv4 one. */
export const networkOfAddressKey = (key: string): string | null =>
  key.endsWith('/64') ? networkKey(key.slice(0, -'/64'.length)) : null;

/** The key of the request's client address (the proxy's X-Forwarded-For where it is trusted: app.ts). */
export const clientAddressKey = (req: Request): string => addressKey(req.ip);

/** The /48 of the request's client address when it is IPv6 (networkKey). */
export const clientNetworkKey = (req: Request): string | null => networkKey(req.ip);
