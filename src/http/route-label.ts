import type { Request, Response } from 'express';

const ROUTE = Symbol('route pattern');
type Labelled = { [ROUTE]?: string };

/** Notes the pattern of the documented route that answers (`/v1/locations/:locationId`), whatever happens after. */
export function setRouteLabel(res: Response, pattern: string): void {
  (res.locals as Labelled)[ROUTE] = pattern;
}

/**
 * The route pattern of a finished request, for labels that must stay few (never the raw path):
 * the documented route's, else the matched route's (Express keeps req.route; req.baseUrl is
 * only reliable for routers mounted at the root, which is where undocumented routes live),
 * else `unmatched`.
 */
export function routeLabelOf(req: Request, res: Response): string {
  const tagged = (res.locals as Labelled)[ROUTE];
  if (tagged !== undefined) return tagged;
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? `${req.baseUrl}${path}` : 'unmatched';
}
