import type { RequestHandler } from 'express';

/**
 * Headers of every answer, errors and the 503 of a replica still starting included:
 * `nosniff`, so a browser never runs a JSON or text body (a journal entry, a relayed answer, an
 * echoed parameter) as a script or a page of this origin.
 */
export const BASE_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'X-Content-Type-Options': 'nosniff' });

export const baseHeaders: RequestHandler = (_req, res, next) => {
  for (const [name, value] of Object.entries(BASE_HEADERS)) res.setHeader(name, value);
  next();
};
