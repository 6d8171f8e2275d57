import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';

import express, { type Express, type Response } from 'express';

import { appPrototypes, createAppServer, type AppPrototypes } from '../../src/http/app-prototypes.js';

/**
 * The server's request and response classes, adopted by an Express app: Express's own change
 * of prototype then changes nothing (each request stays an instance of the server's classes),
 * and everything of Express's request and response still works, what the app added included.
 */

interface Seen {
  requestIsServers: boolean;
  responseIsServers: boolean;
  requestApp: boolean;
  responseApp: boolean;
}

function appNoting(seen: Seen[], prototypes: AppPrototypes): Express {
  const app = express();
  app.disable('x-powered-by');
  // Added to the app's response before adoption, as noteErrorBodies does.
  const send = app.response.send;
  app.response.send = function (this: Response, body?: unknown) {
    this.setHeader('X-Wrapped-Send', 'yes');
    return send.call(this, body);
  } as Response['send'];
  app.get('/things/:id', (req, res) => {
    seen.push({
      requestIsServers: req instanceof prototypes.IncomingMessage,
      responseIsServers: res instanceof prototypes.ServerResponse,
      requestApp: req.app === app,
      responseApp: res.app === app,
    });
    res.locals['id'] = req.params['id'];
    res.status(201).json({ id: res.locals['id'], accept: req.get('accept') ?? null, query: req.query });
  });
  return app;
}

async function listening(
  prototypes: AppPrototypes,
  listener: RequestListener,
): Promise<{ server: Server; url: string }> {
  const server = createServer(
    { IncomingMessage: prototypes.IncomingMessage, ServerResponse: prototypes.ServerResponse },
    listener,
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function closed(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

// V8's own check of hidden classes, for the test that requests share theirs: the flag only lets
// code compiled after it use the %-functions.
setFlagsFromString('--allow-natives-syntax');
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- %-functions are only reachable from code compiled after the flag
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b);') as (a: object, b: object) => boolean;

/** Whether two requests and their responses, both in the route at once, have the same hidden classes. */
async function sameMapsOfTwoRequests(adopt: boolean): Promise<{ requests: boolean; responses: boolean }> {
  const prototypes = appPrototypes();
  const app = express();
  let first: { req: object; res: Response } | null = null;
  const seen: { compared?: { requests: boolean; responses: boolean } } = {};
  app.get('/things/:id', (req, res) => {
    res.locals['seen'] = true;
    if (first === null) {
      first = { req, res };
      return;
    }
    seen.compared = { requests: haveSameMap(first.req, req), responses: haveSameMap(first.res, res) };
    first.res.json({});
    res.json({});
    first = null;
  });
  if (adopt) prototypes.adopt(app);
  const { server, url } = await listening(prototypes, app);
  try {
    // Pairs of requests at once; the last pair's comparison counts.
    for (let i = 0; i < 3; i++) await Promise.all([fetch(`${url}/things/a`), fetch(`${url}/things/b`)]);
    return seen.compared ?? { requests: false, responses: false };
  } finally {
    await closed(server);
  }
}

describe('appPrototypes', () => {
  it('gives every request and response of an adopted app the same hidden classes', async () => {
    expect(await sameMapsOfTwoRequests(true)).toEqual({ requests: true, responses: true });
  });

  // What adoption is for: Express's change of prototype gives each request maps of its own on the
  // V8 of Node 20 and 22; Node 24's does not (docs/benchmarks.md, "Round six").
  (Number(process.versions.node.split('.')[0]) < 24 ? it : it.skip)(
    'leaves an app it has not adopted with hidden classes of their own for each request, on Node 20 and 22',
    async () => {
      expect(await sameMapsOfTwoRequests(false)).toEqual({ requests: false, responses: false });
    },
  );

  it('keeps each request and response an instance of the server classes once the app is adopted, with Express working as before', async () => {
    const seen: Seen[] = [];
    const prototypes = appPrototypes();
    const app = appNoting(seen, prototypes);
    prototypes.adopt(app);
    const { server, url } = await listening(prototypes, app);
    try {
      for (const id of ['a', 'b']) {
        const res = await fetch(`${url}/things/${id}?x=1&x=2`, { headers: { accept: 'application/json' } });
        expect(res.status).toBe(201);
        expect(res.headers.get('x-wrapped-send')).toBe('yes');
        expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(await res.json()).toEqual({ id, accept: 'application/json', query: { x: ['1', '2'] } });
      }
      expect(seen).toEqual([
        { requestIsServers: true, responseIsServers: true, requestApp: true, responseApp: true },
        { requestIsServers: true, responseIsServers: true, requestApp: true, responseApp: true },
      ]);
    } finally {
      await closed(server);
    }
  });

  it('leaves an app it has not adopted to change the prototypes of each request, as Express does', async () => {
    const seen: Seen[] = [];
    const prototypes = appPrototypes();
    const { server, url } = await listening(prototypes, appNoting(seen, prototypes));
    try {
      const res = await fetch(`${url}/things/c`);
      expect(res.status).toBe(201);
      expect(res.headers.get('x-wrapped-send')).toBe('yes');
      expect(seen).toEqual([
        { requestIsServers: false, responseIsServers: false, requestApp: true, responseApp: true },
      ]);
    } finally {
      await closed(server);
    }
  });

  it('serves plain Node requests before an app is adopted (the 503 of a server still starting)', async () => {
    const prototypes = appPrototypes();
    let handle: RequestListener = (_req, res) => {
      res.writeHead(503, { 'Content-Type': 'application/json' }).end('{"error":"starting"}');
    };
    const { server, url } = await listening(prototypes, (req, res) => handle(req, res));
    try {
      expect((await fetch(`${url}/things/d`)).status).toBe(503);
      const seen: Seen[] = [];
      const app = appNoting(seen, prototypes);
      prototypes.adopt(app);
      handle = app;
      expect((await fetch(`${url}/things/d`)).status).toBe(201);
      expect(seen.map((s) => s.requestIsServers && s.responseIsServers)).toEqual([true]);
    } finally {
      await closed(server);
    }
  });

  it('makes a server for an app made already, its prototypes adopted (createAppServer)', async () => {
    const app = express();
    const expressRequest = app.request;
    const instances: boolean[] = [];
    app.get('/', (req, res) => {
      // The adopted prototype is the server class's: its constructor is that class.
      instances.push(req instanceof (app.request.constructor as new () => object) && req.app === app);
      res.json({ ok: true });
    });
    const server = createAppServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      expect(await res.json()).toEqual({ ok: true });
      expect(app.request).not.toBe(expressRequest);
      expect(Object.getPrototypeOf(app.request)).toBe(Object.getPrototypeOf(expressRequest));
      expect(instances).toEqual([true]);
    } finally {
      await closed(server);
    }
  });

  it('adopts one app only: a second would take the first one’s prototypes', () => {
    const prototypes = appPrototypes();
    prototypes.adopt(express());
    expect(() => prototypes.adopt(express())).toThrow('the server has adopted an app already');
  });

  it('gives each server classes of its own', () => {
    const one = appPrototypes();
    const two = appPrototypes();
    one.adopt(express());
    expect(two.IncomingMessage).not.toBe(one.IncomingMessage);
    expect(Object.getPrototypeOf(two.ServerResponse.prototype)).not.toBe(
      Object.getPrototypeOf(one.ServerResponse.prototype),
    );
  });
});
