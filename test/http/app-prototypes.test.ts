import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import express, { type Express, type Response } from 'express';

import { appPrototypes, type AppPrototypes } from '../../src/http/app-prototypes.js';

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

describe('appPrototypes', () => {
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
