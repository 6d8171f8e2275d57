import type { RequestHandler } from 'express';

/**
 * Headers of every answer, errors and the 503 of a replica still starting included:
 * `nosniff`, so a browser never runs a JSON or text body (a journal entry, a relayed answer, an
 * echoed parameter) as a script or a page of this origin.
 */
export const BASE_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'X-Content-Type-Options': 'nosniff' });

/** The headers as [name, value] pairs, made once: Object.entries of the frozen object on every request cost a location GET about 4 % of its CPU (docs/benchmarks.md). */
const BASE_HEADER_PAIRS: readonly (readonly [string, string])[] = Object.entries(BASE_HEADERS);

export const baseHeaders: RequestHandler = (_req, res, next) => {
  for (const [name, value] of BASE_HEADER_PAIRS) res.setHeader(name, value);
  next();
};
