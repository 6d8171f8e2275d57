import express from 'express';
import request from 'supertest';

import { silentLogger } from '../../src/core/logger.js';
import { errorHandler } from '../../src/http/error-handler.js';
import { type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';
import { API_ROUTES, fillPath, appWithRouteIds, OTHER_ROUTES, routeName, type RouteIds } from './route-table.js';

let t: TestApp;
let ids: RouteIds;
beforeAll(async () => {
  ({ t, ids } = await appWithRouteIds());
});

const ALL_ROUTES = [...API_ROUTES, ...OTHER_ROUTES];

/** The route's path with every parameter, or else its last segment, made malformed. */
const malformedPath = (template: string): string => {
  const malformed: RouteIds = {
    locationId: '%E0%A4%A',
    subscriptionId: '%',
    alertId: '%zz',
    deliveryId: '%FF',
    runId: '%C0%80',
    scenario: 'leak%',
    clientId: '%G0',
    file: 'app.%zz.js',
    linkId: '%E2%82',
    token: '%F4%90%80%80',
  };
  return template.includes(':') ? fillPath(template, malformed) : `${template.replace(/\/$/, '/index')}%G0`;
};

describe('a path that is not valid percent-encoding', () => {
  it("gets a 400 that says where, not a 500 (the issue's two examples)", async () => {
    const auth = bearer(DEMO_API_KEY);
    const first = await request(t.app).get('/v1/locations/%/readings/water-usage').set(auth).expect(400);
    expect(first.body).toEqual({
      error: 'invalid_percent_encoding',
      message:
        'The path is not valid percent-encoding: "%/r" at character 15 is not a %XX escape (a "%" starts two hexadecimal digits; write a literal "%" as "%25")',
    });
    const second = await request(t.app).get('/v1/locations/%E0%A4%A').set(auth).expect(400);
    expect(second.body.message).toBe(
      'The path is not valid percent-encoding: "%A" at character 21 is not a %XX escape (a "%" starts two hexadecimal digits; write a literal "%" as "%25")',
    );
  });

  it('names bytes that are not UTF-8', async () => {
    const res = await request(t.app)
      .get(`/v1/locations/${DEMO_LOCATION_ID}/%FF%FE`)
      .set(bearer(DEMO_API_KEY))
      .expect(400);
    expect(res.body.message).toBe(
      'The path is not valid percent-encoding: "%FF%FE" at character 52 is not UTF-8 (percent-encode the UTF-8 bytes of each character)',
    );
  });

  it.each(ALL_ROUTES.map((route) => [routeName(route), route] as const))(
    'gets a JSON 400 on %s',
    async (_name, route) => {
      const path = malformedPath(route.path);
      const res = await request(t.app)[route.method](path).set(bearer(DEMO_API_KEY)).send({});
      expect({ status: res.status, type: res.headers['content-type'], error: res.body.error }).toEqual({
        status: 400,
        type: expect.stringMatching(/^application\/json/),
        error: 'invalid_percent_encoding',
      });
      expect(res.body.message).toMatch(/^The path is not valid percent-encoding: "%[^"]*" at character \d+ /);
    },
  );

  it('is told before the credentials are checked', async () => {
    const res = await request(t.app).get('/v1/locations/%').expect(400);
    expect(res.body.error).toBe('invalid_percent_encoding');
  });
});

describe('a query string that is not valid percent-encoding', () => {
  it('gets a 400 naming the parameter and the character', async () => {
    const res = await request(t.app)
      .get(`/v1/locations/${DEMO_LOCATION_ID}/readings/water-usage?startTime=2026-03-01T00:00:00%2&perPage=5`)
      .set(bearer(DEMO_API_KEY))
      .expect(400);
    expect(res.body).toEqual({
      error: 'invalid_percent_encoding',
      parameter: 'startTime',
      message:
        'The value of query parameter "startTime" is not valid percent-encoding: "%2" at character 30 of the query string is not a %XX escape (a "%" starts two hexadecimal digits; write a literal "%" as "%25")',
    });
  });

  it('gets a 400 when a key is malformed', async () => {
    const res = await request(t.app).get('/v1/locations?page=1&per%ZZPage=5').set(bearer(DEMO_API_KEY)).expect(400);
    expect(res.body.message).toMatch(/^The query string is not valid percent-encoding: "%ZZ" at character 11 /);
    expect(res.body.parameter).toBeUndefined();
  });

  it.each(
    ALL_ROUTES.filter((route) => !route.path.startsWith('/oauth2/')).map((route) => [routeName(route), route] as const),
  )('gets a JSON 400 on %s', async (_name, route) => {
    const path = fillPath(route.path, ids);
    const query = 'query' in route && typeof route.query === 'string' ? `${route.query}&` : '';
    const res = await request(t.app)[route.method](`${path}?${query}note=50%`).set(bearer(DEMO_API_KEY)).send({});
    expect({ status: res.status, type: res.headers['content-type'], body: res.body }).toEqual({
      status: 400,
      type: expect.stringMatching(/^application\/json/),
      body: {
        error: 'invalid_percent_encoding',
        parameter: 'note',
        message: expect.stringContaining('The value of query parameter "note" is not valid percent-encoding'),
      },
    });
  });

  it.each(['/oauth2/token', '/oauth2/revoke'])('gets the RFC 6749 shape on %s', async (endpoint) => {
    const res = await request(t.app)
      .post(`${endpoint}?grant_type=%`)
      .type('form')
      .send({ grant_type: 'refresh_token' })
      .expect(400);
    expect(res.body).toEqual({
      error: 'invalid_request',
      error_description: expect.stringContaining(
        'The value of query parameter "grant_type" is not valid percent-encoding',
      ),
    });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('leaves well-formed escapes and a "+" for a space alone', async () => {
    const res = await request(t.app)
      .get(`/v1/locations/${DEMO_LOCATION_ID}/readings/water-usage?startTime=2026-03-01T00%3A00%3A00+00%3A00&perPage=1`)
      .set(bearer(DEMO_API_KEY));
    expect(res.status).toBe(200);
  });
});

describe('a route parameter Express cannot decode, with no percent-encoding check in front', () => {
  it('is a 400 from the error handler, not a 500', async () => {
    const app = express();
    app.get('/things/:id', (_req, res) => {
      res.json({});
    });
    app.use(errorHandler(silentLogger));
    const res = await request(app).get('/things/%E0%A4%A').expect(400);
    expect(res.body).toEqual({
      error: 'invalid_percent_encoding',
      message:
        'The path is not valid percent-encoding: "%A" at character 7 of the segment "%E0%A4%A" is not a %XX escape (a "%" starts two hexadecimal digits; write a literal "%" as "%25")',
    });
  });
});
