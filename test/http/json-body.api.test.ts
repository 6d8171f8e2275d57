import { request as httpRequest } from 'node:http';

import request from 'supertest';

import { MAX_JSON_DEPTH } from '../../src/http/json-body.js';
import { listen } from '../auth/listening.js';
import { docOf, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';
import { API_ROUTES, fillPath, appWithRouteIds, routeName, type RouteIds } from './route-table.js';

let t: TestApp;
let ids: RouteIds;
beforeEach(async () => {
  ({ t, ids } = await appWithRouteIds());
});

const auth = bearer(DEMO_API_KEY);
const subscriptionsPath = `/v1/locations/${DEMO_LOCATION_ID}/subscriptions`;
const subscriptionCount = async (): Promise<number> => (await docOf(t)).subscriptions.length;
const bodyRoutes = API_ROUTES.filter((route) => route.body !== undefined && Object.keys(route.body).length > 0);
const noBodyRoutes = API_ROUTES.filter((route) => route.method === 'post' && route.body === undefined);

describe('a JSON body sent the way curl -d sends it (application/x-www-form-urlencoded)', () => {
  it('is refused with 415 saying how to send JSON, and changes nothing', async () => {
    const before = await subscriptionCount();
    const res = await request(t.app)
      .post(subscriptionsPath)
      .set(auth)
      .type('form')
      .send('{"endpoint": "https://example.com/hook"}')
      .expect(415);
    expect(res.body).toEqual({
      error: 'unsupported_media_type',
      message:
        'The request body is sent as application/x-www-form-urlencoded (what curl -d sends), but this API reads JSON bodies only: ' +
        `send the header "Content-Type: application/json" (with curl: -H 'Content-Type: application/json', or --json '<body>' in curl 7.82+)`,
    });
    expect(res.headers['accept']).toBe('application/json');
    expect(await subscriptionCount()).toBe(before);
  });

  it('is accepted once sent as curl --json sends it', async () => {
    await request(t.app)
      .post(subscriptionsPath)
      .set(auth)
      .set({ 'Content-Type': 'application/json', Accept: 'application/json' })
      .send('{"endpoint": "https://example.com/hook"}')
      .expect(200);
  });
});

describe.each(bodyRoutes.map((route) => [routeName(route), route] as const))('%s', (_name, route) => {
  const send = (type: string | null, body: string): request.Test => {
    const req = request(t.app)
      [route.method](`${fillPath(route.path, ids)}${route.query ? `?${route.query}` : ''}`)
      .set(auth);
    // superagent gives a string body a form type of its own, so one without a type goes as bytes.
    return type === null ? req.send(Buffer.from(body)) : req.set('Content-Type', type).send(body);
  };

  it.each([
    'application/x-www-form-urlencoded',
    'text/plain;charset=UTF-8',
    'multipart/form-data; boundary=x',
    'application/xml',
  ])('refuses its body sent as %s with 415 naming the type', async (type) => {
    const res = await send(type, JSON.stringify(route.body)).expect(415);
    expect(res.body.error).toBe('unsupported_media_type');
    expect(res.body.message).toContain(`sent as ${type.split(';')[0]!}`);
  });

  it('reads its body as JSON when no Content-Type is sent', async () => {
    await send(null, JSON.stringify(route.body)).expect(route.ok);
  });

  it('reads its body declared as application/json; charset=utf-8, as the official Node client sends it', async () => {
    await send('application/json; charset=utf-8', JSON.stringify(route.body)).expect(route.ok);
  });
});

describe.each(noBodyRoutes.map((route) => [routeName(route), route] as const))(
  '%s, which takes no body',
  (_name, route) => {
    it.each([null, 'application/x-www-form-urlencoded', 'application/json', 'text/plain'])(
      'accepts an empty body with Content-Type %s',
      async (type) => {
        const req = request(t.app).post(fillPath(route.path, ids)).set(auth).set('Content-Length', '0');
        if (type !== null) req.set('Content-Type', type);
        await req.send('').expect(route.ok);
      },
    );

    it('accepts no body at all', async () => {
      await request(t.app).post(fillPath(route.path, ids)).set(auth).expect(route.ok);
    });
  },
);

describe('bodies the parser reads elsewhere', () => {
  it('keeps reading forms on the token endpoint', async () => {
    const res = await request(t.app)
      .post('/oauth2/token')
      .type('form')
      .send('grant_type=password&client_id=demo-client&client_secret=demo-client-secret')
      .expect(400);
    expect(res.body.error).toBe('unsupported_grant_type');
  });

  it('does not read a body sent with GET: it is ignored, even when it is not valid JSON or not JSON', async () => {
    await request(t.app)
      .get('/v1/locations')
      .set(auth)
      .set('Content-Type', 'application/json')
      .send('{"page":')
      .expect(200);
    await request(t.app).get('/v1/locations').set(auth).set('Content-Type', 'text/plain').send('page=2').expect(200);
  });
});

describe('bodies that cannot be used', () => {
  it(`refuses JSON nested more than ${MAX_JSON_DEPTH} levels deep with 400, and stores nothing of it`, async () => {
    const deep = '['.repeat(6000) + ']'.repeat(6000);
    const res = await request(t.app)
      .post('/sandbox/faults')
      .set(auth)
      .type('json')
      .send(`{"status": 418, "body": ${deep}}`)
      .expect(400);
    expect(res.body).toEqual({
      error: 'invalid_json',
      message: expect.stringContaining(`more than ${MAX_JSON_DEPTH} levels deep`),
    });
    await request(t.app).get('/v1/locations').set(auth).expect(200);
  });

  it(`accepts JSON exactly ${MAX_JSON_DEPTH} levels deep`, async () => {
    const nested = '['.repeat(MAX_JSON_DEPTH - 1) + ']'.repeat(MAX_JSON_DEPTH - 1);
    await request(t.app)
      .post('/sandbox/faults')
      .set(auth)
      .type('json')
      .send(`{"path": "/v1/nothing", "status": 418, "body": ${nested}}`)
      .expect(201);
  });

  it('answers a form of more than 1000 fields with 413, not 500', async () => {
    const form = Array.from({ length: 1001 }, (_, i) => `f${i}=1`).join('&');
    const res = await request(t.app).post('/login').type('form').send(form).expect(413);
    expect(res.body).toEqual({ error: 'payload_too_large', message: 'The form body has more than 1000 parameters' });
  });

  /** A JSON body sent as is, said to be compressed with `encoding`. */
  const putEncoded = (encoding: string, body: string): request.Test =>
    request(t.app)
      .put(`/v1/locations/${DEMO_LOCATION_ID}`)
      .set(auth)
      .set({ 'Content-Type': 'application/json', 'Content-Encoding': encoding })
      .send(body);

  it('answers a body that does not decompress as its Content-Encoding says with 400, not 500', async () => {
    const res = await putEncoded('gzip', '{"homeAway":"away"}');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'invalid_body',
      message: expect.stringMatching(/^The request body could not be read: /),
    });
  });

  it('answers an unknown Content-Encoding with 415 listing the supported ones', async () => {
    const res = await putEncoded('compress', '{}');
    expect(res.status).toBe(415);
    expect(res.headers['accept-encoding']).toBe('gzip, deflate, br');
  });
});

describe('chunked bodies (no Content-Length)', () => {
  const post = async (path: string, type: string, chunks: string[]): Promise<number> => {
    const server = await listen(t.app);
    try {
      return await new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          `${server.baseUrl}${path}`,
          { method: 'POST', headers: { ...auth, 'Content-Type': type } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.flushHeaders();
        for (const chunk of chunks) req.write(chunk);
        req.end();
      });
    } finally {
      await server.close();
    }
  };

  it('an empty one of another type is no body', async () => {
    expect(await post('/sandbox/reset', 'application/x-www-form-urlencoded', [])).toBe(200);
  });

  it('a non-empty one of another type is refused with 415', async () => {
    expect(await post('/sandbox/reset', 'text/plain', ['a=', 'b'])).toBe(415);
  });
});
