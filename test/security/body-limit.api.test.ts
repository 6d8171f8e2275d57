import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

import request from 'supertest';

import { BODY_LIMIT } from '../../src/app.js';
import { type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY } from '../helpers/demo.js';
import {
  API_ROUTES,
  fillPath,
  appWithRouteIds,
  OTHER_ROUTES,
  RELAY_ROUTES,
  routeName,
  type Method,
  type RouteIds,
} from '../http/route-table.js';

// Every route reads at most BODY_LIMIT of a request body, whatever its type, declared length or
// method, and answers a larger one 413 in JSON (in RFC 6749 form on the token endpoint).

const OVER = 'x'.repeat(101 * 1024);
const TYPES = ['application/json', 'application/x-www-form-urlencoded', 'text/plain', 'application/octet-stream'];

let t: TestApp;
let ids: RouteIds;
let relayPath: string;

beforeAll(async () => {
  ({ t, ids } = await appWithRouteIds());
  const relay = await request(t.app).post('/sandbox/relays').set(bearer(DEMO_API_KEY)).send({}).expect(200);
  relayPath = new URL((relay.body as { endpoint: string }).endpoint).pathname;
});

const pathOf = (route: { path: string }): string => {
  if (route.path === '/:relayId') return relayPath;
  return fillPath(
    route.path
      .replace(':relayId', relayPath.split('/').pop()!)
      .replace(':requestId', '00000000-0000-4000-8000-000000000000'),
    ids,
  );
};

const ROUTES: { method: Method; path: string }[] = [...API_ROUTES, ...OTHER_ROUTES, ...RELAY_ROUTES];

describe(`a request body over ${BODY_LIMIT} bytes`, () => {
  it.each(ROUTES.map((route) => [routeName(route), route] as const))(
    '%s answers 413 in JSON, whatever the type of the body',
    async (_name, route) => {
      for (const type of TYPES) {
        const res = await request(t.app)
          [route.method](pathOf(route))
          .set(bearer(DEMO_API_KEY))
          .set('Content-Type', type)
          .send(OVER);
        const body = res.body as Record<string, unknown>;
        expect({ type, status: res.status, contentType: res.headers['content-type'] }).toEqual({
          type,
          status: 413,
          contentType: expect.stringMatching(/^application\/json/),
        });
        expect(body['error'] === 'payload_too_large' || body['error_description'] !== undefined).toBe(true);
      }
    },
  );

  it('sent in chunks, without a declared length, answers 413 too', async () => {
    const server = t.app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      for (const path of ['/v1/locations', '/sandbox/accounts', '/login', '/oauth2/token', '/docs', '/nowhere']) {
        for (const type of TYPES) {
          const status = await new Promise<number>((resolve, reject) => {
            const req = httpRequest(
              {
                host: '127.0.0.1',
                port,
                path,
                method: 'POST',
                headers: { 'Content-Type': type, 'Transfer-Encoding': 'chunked' },
              },
              (res) => {
                res.resume();
                resolve(res.statusCode ?? 0);
              },
            );
            req.on('error', reject);
            for (let i = 0; i < 101; i++) req.write('y'.repeat(1024));
            req.end();
          });
          expect({ path, type, status }).toEqual({ path, type, status: 413 });
        }
      }
    } finally {
      server.close();
    }
  });

  it('names the limit, and the operator sees it in /metrics', async () => {
    const res = await request(t.app).post('/v1/locations').set('Content-Type', 'text/plain').send(OVER).expect(413);
    expect(res.body).toEqual({ error: 'payload_too_large', message: expect.stringContaining('102400 bytes') });
    const metrics = (await request(t.app).get('/metrics').expect(200)).text;
    expect(metrics).toMatch(/sandbox_limited_requests_total\{rule="BODY_LIMIT"\} [1-9]/);
  });

  it('a body just under the limit is read as before', async () => {
    const under = JSON.stringify({ endpoint: `https://example.com/${'a'.repeat(90 * 1024)}` });
    const res = await request(t.app)
      .post(`/v1/locations/${ids.locationId}/subscriptions`)
      .set(bearer(DEMO_API_KEY))
      .set('Content-Type', 'application/json')
      .send(under);
    expect(res.status).toBe(400);
    expect(res.body.parameter).toBe('endpoint');
  });
});
