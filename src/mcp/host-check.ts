import type { RequestHandler } from 'express';

import { AppError } from '../core/errors.js';
import { isLoopbackHost } from '../core/loopback.js';
import { bearerChallenge } from '../http/www-authenticate.js';

export interface HostCheckDeps {
  /** Read at each request: server.ts sets the public URL once the port is known. */
  urls: { readonly publicUrl: string };
  config: { readonly hosted: boolean };
}

/** `host[:port]` as a URL of the request's scheme reads it: its host (default port left out), name and port; null when it is not one. */
function parseHost(hostAndPort: string, scheme: string): { host: string; hostname: string; port: number } | null {
  const text = `${scheme}://${hostAndPort}`;
  if (!URL.canParse(text)) return null;
  const url = new URL(text);
  // Only a bare host and port: no user, path, query or fragment slipped in.
  if (url.username !== '' || url.password !== '' || url.pathname !== '/' || url.search !== '' || url.hash !== '')
    return null;
  return {
    host: url.host,
    hostname: url.hostname,
    port: url.port === '' ? (scheme === 'https' ? 443 : 80) : Number(url.port),
  };
}

/**
 * DNS rebinding protection for /mcp (MCP's transport security rules): a web page on another
 * site whose name is made to resolve to this machine can make a browser send requests here, but
 * they carry that site's name in Host and Origin. So a request whose Host, or Origin when it has
 * one, is not the sandbox's own is refused with 403 before anything else: the host of PUBLIC_URL,
 * and, on a local sandbox, any loopback spelling (localhost, 127.0.0.1, [::1]...) with the port
 * the request came in on. A sandbox behind a proxy under another name needs that name as PUBLIC_URL.
 */
export function requireOwnHost(deps: HostCheckDeps): RequestHandler {
  return (req, _res, next) => {
    const scheme = req.protocol;
    const own = new URL(deps.urls.publicUrl);
    const ownHere = !deps.config.hosted && req.socket.localPort !== undefined;
    const isOwn = (given: string, asScheme: string): boolean => {
      const parsed = parseHost(given, asScheme);
      if (!parsed) return false;
      if (parsed.host === own.host) return true;
      return ownHere && isLoopbackHost(parsed.hostname) && parsed.port === req.socket.localPort;
    };
    const expected = ownHere
      ? `${own.host}, or a loopback name such as localhost or 127.0.0.1 with port ${String(req.socket.localPort)}`
      : own.host;
    const host = req.headers.host;
    if (host === undefined || !isOwn(host, scheme))
      throw refused('host_not_allowed', `The Host header ${quoted(host)} is not this sandbox's (${expected})`);
    const origin = req.headers.origin;
    if (origin !== undefined && !originIsOwn(origin, isOwn))
      throw refused('origin_not_allowed', `The Origin header ${quoted(origin)} is not this sandbox's (${expected})`);
    next();
  };
}

function originIsOwn(origin: string, isOwn: (host: string, scheme: string) => boolean): boolean {
  if (!URL.canParse(origin)) return false;
  const url = new URL(origin);
  return (url.protocol === 'http:' || url.protocol === 'https:') && isOwn(url.host, url.protocol.slice(0, -1));
}

const quoted = (value: string | undefined): string =>
  value === undefined ? '(none)' : JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value);

// Every 403 of a route behind the account's credentials carries the Bearer challenge (as admin_disabled does).
const refused = (code: string, why: string): AppError =>
  new AppError(
    403,
    code,
    `${why}: /mcp answers only requests for its own address, as a guard against DNS rebinding. Use the sandbox's address; behind a proxy under another name, start the sandbox with that name as PUBLIC_URL`,
    { headers: { 'WWW-Authenticate': bearerChallenge() } },
  );
