import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';

import express, { Router, type Request } from 'express';

import { requestPath } from '../../src/http/request-path.js';

/**
 * requestPath against what it stands for, req.baseUrl + req.path, read by middleware mounted
 * where the sandbox mounts its journal and faults: in a strict router at /v1, in one nested
 * below it, and at the top. Requests go over a raw socket, so unusual request targets reach
 * Express as a client sent them.
 */

interface Seen {
  fast: string;
  parsed: string;
}

async function withServer(run: (send: (target: string) => Promise<Seen[]>) => Promise<void>): Promise<void> {
  let seen: Seen[] = [];
  const note = (req: Request): void => {
    seen.push({ fast: requestPath(req), parsed: req.baseUrl + req.path });
  };
  const app = express();
  const v1 = Router({ strict: true });
  const nested = Router({ strict: true });
  v1.use((req, _res, next) => {
    note(req);
    next();
  });
  nested.use((req, _res, next) => {
    note(req);
    next();
  });
  v1.use('/locations', nested);
  app.use('/v1', v1);
  app.use((req, res) => {
    note(req);
    res.status(204).end();
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  const send = (target: string): Promise<Seen[]> =>
    new Promise((resolve, reject) => {
      seen = [];
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
      });
      socket.on('data', () => undefined);
      socket.on('error', reject);
      socket.on('close', () => resolve(seen));
    });
  try {
    await run(send);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

const TARGETS = [
  '/v1/locations/2311f461-b957-4b4f-ad46-fe7cd7964881',
  '/v1/locations/2311f461/readings/water-usage?startTime=2026-03-01T00:00:00Z&perPage=10',
  '/v1',
  '/v1/',
  '/v1?x=1',
  '/V1/Locations/abc',
  '/v1/locations',
  '/v1/locations/',
  '/v1//locations/x',
  '/v1/locations/a%20b%2Fc',
  '/v1/locations/a{b}|c^d',
  '/v1/locations/a{b}?q=1#frag',
  '/v1/locations/a\\b?q=1#frag',
  '/v1/locations/x#frag',
  '/v1/locations/x?q=a%23b',
  'http://127.0.0.1/v1/locations/x?q=1',
  '/sandbox/requests',
  '/',
  '/oauth2/token?x=1',
];

describe('requestPath', () => {
  it('reads, for every mount and every request target, what req.baseUrl + req.path reads', async () => {
    await withServer(async (send) => {
      for (const target of TARGETS) {
        const seen = await send(target);
        expect({ target, seen: seen.length > 0 }).toEqual({ target, seen: true });
        for (const { fast, parsed } of seen) expect({ target, path: fast }).toEqual({ target, path: parsed });
      }
    });
  });

  it('adds the slash Express adds when a mount takes the whole path', async () => {
    await withServer(async (send) => {
      const seen = await send('/v1?x=1');
      expect(seen[0]).toEqual({ fast: '/v1/', parsed: '/v1/' });
    });
  });
});
