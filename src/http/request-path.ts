import type { Request } from 'express';

/** A URL parseurl reads as it is: a path first, and no character that sends it to url.parse (white space, "#", NBSP, BOM). */
const PLAIN_URL = /^\/[^\s#\u00a0\ufeff]*$/;

/**
 * The request's path as a middleware mounted in a router reads it, `req.baseUrl + req.path`,
 * without parsing the URL again: parseurl parses req.url afresh whenever a router has rewritten
 * it, which cost a location GET about 5 % of its CPU (docs/benchmarks.md). The original URL's
 * path is the same text: a mount takes its own part of the path as baseUrl and leaves the rest,
 * with a "/" added when nothing is left. Other URLs (absolute-form, unusual characters) are
 * parsed as before.
 */
export function requestPath(req: Request): string {
  const url = req.originalUrl;
  if (!PLAIN_URL.test(url)) return req.baseUrl + req.path;
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  return path === req.baseUrl ? `${path}/` : path;
}
