import express from 'express';
import request from 'supertest';

import type { Logger } from '../../src/core/logger.js';
import { errorHandler, notFoundHandler } from '../../src/http/error-handler.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});

describe('errors', () => {
  it('answers an unknown route with a JSON 404 naming it', async () => {
    const res = await request(t.app).get('/v2/locations').expect(404);
    expect(res.body).toEqual({ error: 'not_found', message: expect.stringContaining('GET /v2/locations') });
  });

  it('answers an unknown /v1 route with a JSON 404 once authenticated', async () => {
    const res = await request(t.app).get('/v1/devices').set(bearer(DEMO_API_KEY)).expect(404);
    expect(res.body.error).toBe('not_found');
  });

  it('answers a wrong method with 405 and an Allow header', async () => {
    const res = await request(t.app).delete(`/v1/locations/${DEMO_LOCATION_ID}`).set(bearer(DEMO_API_KEY)).expect(405);
    expect(res.headers['allow']).toBe('GET, PUT, HEAD');
    expect(res.body).toEqual({
      error: 'method_not_allowed',
      message: `DELETE is not allowed on /v1/locations/${DEMO_LOCATION_ID}; allowed: GET, PUT, HEAD`,
    });
  });

  it('answers a JSON body that is not an object with a 400 naming the body', async () => {
    const res = await request(t.app)
      .put(`/v1/locations/${DEMO_LOCATION_ID}`)
      .set(bearer(DEMO_API_KEY))
      .set('Content-Type', 'application/json')
      .send('"away"')
      .expect(400);
    expect(res.body.parameter).toBe('body');
  });

  it('answers an unreadable token request in RFC 6749 form', async () => {
    const res = await request(t.app)
      .post('/oauth2/token')
      .set('Content-Type', 'application/json')
      .send('{"grant_type": ')
      .expect(400);
    expect(res.body).toEqual({
      error: 'invalid_request',
      error_description: expect.stringContaining('not valid JSON'),
    });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('turns an unexpected exception into a JSON 500 without internals, and logs the stack', async () => {
    const logged: { msg: string; fields: Record<string, unknown> | undefined }[] = [];
    const logger: Logger = {
      debug: () => {},
      info: () => {},
      warn: () => {},
      error: (msg, fields) => logged.push({ msg, fields }),
      child: () => logger,
    };
    const app = express();
    app.get('/boom', () => {
      throw new Error('secret internal detail');
    });
    app.use(notFoundHandler);
    app.use(errorHandler(logger));
    const res = await request(app).get('/boom').expect(500);
    expect(res.body).toEqual({ error: 'internal_error', message: expect.any(String) });
    expect(JSON.stringify(res.body)).not.toContain('secret internal detail');
    expect(logged).toHaveLength(1);
    expect((logged[0]!.fields!['err'] as Error).stack).toContain('secret internal detail');
  });
});
