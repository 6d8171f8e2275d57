import type { RequestHandler, Router } from 'express';

import { AppError, invalidParameter } from '../core/errors.js';

/** Answers 405 with an Allow header for methods a path does not serve. Call after the path's real routes. */
export function allowOnly(router: Router, path: string, methods: string[]): void {
  const allow = [...methods, ...(methods.includes('GET') ? ['HEAD'] : [])].join(', ');
  const handler: RequestHandler = (req) => {
    throw new AppError(
      405,
      'method_not_allowed',
      `${req.method} is not allowed on ${req.baseUrl}${req.path}; allowed: ${allow}`,
      {
        headers: { Allow: allow },
      },
    );
  };
  router.all(path, handler);
}

/** One query parameter as a string; a repeated parameter is a 400, since the API never takes lists. */
export function queryString(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalidParameter(name, `${name} must be given once, as a single value`);
  return value;
}
