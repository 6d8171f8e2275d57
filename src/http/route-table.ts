import type { Express, NextFunction, Request, RequestHandler, Response, Router } from 'express';

import { present } from '../core/errors.js';

/** One route of a router made by operationRouter: its method, its Express path under the mount, its handlers and Express's Route. */
export interface TableRoute {
  method: string;
  path: string;
  handlers: readonly RequestHandler[];
  route: unknown;
}

const routesOf = new WeakMap<Router, readonly TableRoute[]>();

/** Called by operationRouter once a router is complete: its routes, in the order Express tries them. */
export function noteTableRoutes(router: Router, routes: readonly TableRoute[]): void {
  routesOf.set(router, routes);
}

interface Entry {
  /** Empty for a path with a trailing slash that may be left out: a request it matches goes to Express. */
  method: string;
  /** The path's segments after the mount: literal text, or null for a parameter. */
  segments: (string | null)[];
  names: string[];
  /** Which router it belongs to: the first router with a route for a path decides, as in Express. */
  router: number;
  route: unknown;
  /** The prelude, the mount's chain and the route's handlers, in the order they run. */
  steps: RequestHandler[];
}

/** The table as the app's first middleware; `inFront(app)` also lets it serve before Express's router walks the app's layers. */
export type RouteTable = RequestHandler & { inFront(app: Express): void };

/** Characters a path may have here (RFC 3986 pchar and "/"); anything else goes the usual way. */
const PLAIN_PATH = /^[\w.~%!$&'()*+,;=:@/-]*$/;
const noParams = (): Record<string, string> => Object.create(null) as Record<string, string>;

/** As Express decodes a route parameter (router's decodeParam): the same value, or the same error. */
function decodeParam(value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch (error) {
    if (error instanceof URIError)
      Object.assign(error, { message: `Failed to decode param '${value}'`, status: 400, statusCode: 400 });
    throw error;
  }
}

/**
 * A front door for the API's routes. Express finds a /v1 route by walking the app's
 * middleware, then the API router's, then every route and 405 handler of the feature routers
 * mounted before the route's own, each in its own layer (a closure and a match object apiece),
 * which cost a /v1 request about a fifth of its memory and a tenth of its time. Mounted first,
 * this looks the request's method and path up in a table of the routers' templates and runs
 * what Express would have run, in the same order and with the same request state: `prelude`
 * (the app's middleware before the mount) on the whole URL, then, with req.baseUrl and req.url
 * as the mount leaves them, `chain` (the mount's middleware), then the route's handlers with
 * req.params and req.route set. An error leaves with the request as Express would hand it to the
 * app's error handler. Whatever is not a plain match (another method such as HEAD or OPTIONS, a
 * path in other letter case, with a trailing slash or unusual characters, no route, or a method
 * the path does not serve) goes on to the routers, which answer it as before.
 *
 * The handlers never call next('route') or next('router'), and a route's last handler answers:
 * calling next() past it leaves the request to the app's later layers, as an error does.
 *
 * `inFront(app)`, with the table mounted as the app's first middleware, goes one step further:
 * a request the table finds is served before Express's router starts its walk of the app's
 * layers (its per-request closures, the URL parsed again for each layer: about a twentieth of a
 * location GET's CPU, docs/benchmarks.md), with what app.handle and the router would have set
 * up for their first layer. A request that leaves the table goes to the app's router after all,
 * whose first layer, the table, hands it on with its error.
 */
export function routeTable(options: {
  mount: string;
  prelude: readonly RequestHandler[];
  chain: readonly RequestHandler[];
  routers: readonly Router[];
}): RouteTable {
  const { mount, prelude, chain } = options;
  const entries: Entry[] = [];
  options.routers.forEach((router, index) => {
    const routes = routesOf.get(router);
    if (!routes) throw new Error(`routeTable: router ${index} was not made by operationRouter`);
    for (const r of routes) {
      const optionalSlash = r.path.endsWith('{/}');
      const path = optionalSlash ? r.path.slice(0, -3) : r.path;
      if (/[{}*?()]/.test(path)) throw new Error(`routeTable: ${r.path} has a pattern the table does not read`);
      const parts = path.split('/').slice(1);
      const segments = parts.map((s) => (s.startsWith(':') ? null : s));
      const names = parts.flatMap((s) => (s.startsWith(':') ? [s.slice(1)] : []));
      entries.push({
        method: optionalSlash ? '' : r.method,
        segments,
        names,
        router: index,
        route: r.route,
        steps: [...prelude, ...chain, ...r.handlers],
      });
    }
  });
  for (const step of [...prelude, ...chain])
    if (step.length > 3) throw new Error('routeTable: error handlers cannot be steps');
  const mountAt = prelude.length;
  const routeAt = prelude.length + chain.length;
  const prefix = `${mount}/`;

  const find = (method: string, url: string): { entry: Entry; values: string[] } | null => {
    if (!url.startsWith(prefix)) return null;
    const query = url.indexOf('?');
    const path = query < 0 ? url.slice(mount.length) : url.slice(mount.length, query);
    if (!PLAIN_PATH.test(path)) return null;
    const parts = path.split('/');
    let router = -1;
    for (const entry of entries) {
      if (router >= 0 && entry.router !== router) break;
      const values = matchSegments(entry.segments, parts);
      if (values === null) continue;
      if (entry.method === '') return null;
      router = entry.router;
      if (entry.method === method) return { entry, values };
    }
    return null;
  };

  const serve = (
    found: { entry: Entry; values: string[] },
    req: Request,
    res: Response,
    outerNext: NextFunction,
  ): void => {
    const { entry, values } = found;
    const { steps } = entry;
    const url = req.url;
    const baseUrl = req.baseUrl;
    const params = req.params;
    const outerReqNext = req.next;
    let index = 0;
    const leave = (error?: unknown): void => {
      req.url = url;
      req.baseUrl = baseUrl;
      req.params = params;
      req.next = outerReqNext;
      outerNext(error);
    };
    const next: NextFunction = (error?: unknown) => {
      if (error) {
        leave(error);
        return;
      }
      if (index === mountAt) {
        req.baseUrl = baseUrl + mount;
        req.url = url.slice(mount.length);
        req.params = {};
        req.next = next;
      }
      if (index === routeAt) {
        const routeParams = noParams();
        try {
          entry.names.forEach(
            (name, i) => (routeParams[name] = decodeParam(present(values[i], `the value of :${name}`))),
          );
        } catch (decoding) {
          leave(decoding);
          return;
        }
        req.params = routeParams;
        (req as Request & { route: unknown }).route = entry.route;
      }
      const step = steps[index++];
      if (step === undefined) {
        leave();
        return;
      }
      run(step, req, res, next);
    };
    next();
  };

  const table: RequestHandler = (req, res, outerNext) => {
    const locals = res.locals as Left;
    const left = locals[LEFT];
    if (left !== undefined) {
      locals[LEFT] = undefined;
      outerNext(left.error);
      return;
    }
    const found = find(req.method, req.url);
    if (!found) {
      outerNext();
      return;
    }
    serve(found, req, res, outerNext);
  };

  return Object.assign(table, {
    inFront(app: Express): void {
      const expressApp = app as unknown as ExpressInternals;
      const appHandle = expressApp.handle;
      expressApp.handle = function handle(req, res, callback) {
        const found = find(req.method, req.url);
        if (!found) {
          appHandle.call(this, req, res, callback);
          return;
        }
        // What Express's app.handle and its router set up before the router's first layer (this table).
        if (expressApp.enabled('x-powered-by')) res.setHeader('X-Powered-By', 'Express');
        req.res = res;
        res.req = req;
        Object.setPrototypeOf(req, expressApp.request);
        Object.setPrototypeOf(res, expressApp.response);
        // Both may be missing at this point, whatever the typings say.
        (res as { locals?: Response['locals'] }).locals ??= Object.create(null) as Response['locals'];
        (req as { originalUrl?: string }).originalUrl ??= req.url;
        req.baseUrl = '';
        req.params = {};
        serve(found, req, res, (error?: unknown) => {
          // Back to the app's router, where this table, its first layer, hands `error` on.
          (res.locals as Left)[LEFT] = { error };
          appHandle.call(this, req, res, callback);
        });
      };
    },
  });
}

const LEFT = Symbol('left the route table');
type Left = { [LEFT]?: { error: unknown } | undefined };

/** What the table uses of an Express app beyond its typings: its handle, as the app function calls it. */
interface ExpressInternals {
  handle: (this: unknown, req: Request, res: Response, callback?: (error?: unknown) => void) => void;
  enabled(setting: string): boolean;
  request: object;
  response: object;
}

/** The parameter values of `parts` (a path split at "/", its empty first part included) if it fits `segments`, else null. */
function matchSegments(segments: readonly (string | null)[], parts: readonly string[]): string[] | null {
  if (parts.length !== segments.length + 1) return null;
  const values: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const part = present(parts[i + 1], 'a path segment');
    const literal = segments[i];
    if (literal === null) {
      if (part === '') return null;
      values.push(part);
    } else if (part !== literal) {
      return null;
    }
  }
  return values;
}

/** Runs one handler as Express's Layer does: a throw or a rejected promise goes to next. */
function run(handler: RequestHandler, req: Request, res: Response, next: NextFunction): void {
  try {
    const result: unknown = handler(req, res, next);
    if (
      result !== null &&
      (typeof result === 'object' || typeof result === 'function') &&
      typeof (result as { then?: unknown }).then === 'function'
    ) {
      (result as Promise<unknown>).then(undefined, (error: unknown) => next(error || new Error('Rejected promise')));
    }
  } catch (error) {
    next(error);
  }
}
