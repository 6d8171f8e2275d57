import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';

import type { Express } from 'express';

/**
 * Request and response classes for an HTTP server whose requests an Express app handles, made
 * before the app exists (the server answers 503 until the app is ready): pass them to
 * createServer, then `adopt` the app once it is made.
 *
 * Why: Express gives each request and response its app's prototypes (Object.setPrototypeOf in
 * app.handle). On the V8 of Node 20 and 22 (not 24), each property added after such a change
 * (res.locals, req.params, and every one a middleware adds) gives the object a hidden class of
 * its own: every request then makes new maps, and each property read of req and res on the hot
 * path misses its inline cache. When the app's prototypes are the server's own class prototypes,
 * that call sets the prototype the object has already, which V8 skips, so every request shares
 * one set of maps. docs/benchmarks.md ("Round six") has the figures.
 */
export interface AppPrototypes {
  readonly IncomingMessage: typeof IncomingMessage;
  readonly ServerResponse: typeof ServerResponse<IncomingMessage>;
  /** Makes the app's `request` and `response` the classes' prototypes, with everything they had. Once, before the app handles a request. */
  adopt(app: Express): void;
}

export function appPrototypes(): AppPrototypes {
  // A class per server: adopt changes these prototypes, and a process may run several servers (tests).
  class AppRequest extends IncomingMessage {}
  class AppResponse extends ServerResponse {}
  let adopted = false;
  return {
    IncomingMessage: AppRequest,
    ServerResponse: AppResponse,
    adopt(app) {
      if (adopted) throw new Error('the server has adopted an app already');
      adopted = true;
      app.request = becomes(AppRequest.prototype, app.request);
      app.response = becomes(AppResponse.prototype, app.response);
    },
  };
}

/** An HTTP server for an app made already, its prototypes adopted (the benches' sandboxes in one process). */
export function createAppServer(app: Express): Server {
  const prototypes = appPrototypes();
  prototypes.adopt(app);
  return createServer({ IncomingMessage: prototypes.IncomingMessage, ServerResponse: prototypes.ServerResponse }, app);
}

/** `target`, given the prototype and own properties of `appObject` (its `app`, and what the app added, such as a wrapped res.send). */
function becomes<T extends object>(target: object, appObject: T): T {
  Object.setPrototypeOf(target, Object.getPrototypeOf(appObject) as object | null);
  Object.defineProperties(target, Object.getOwnPropertyDescriptors(appObject));
  return target as T;
}
