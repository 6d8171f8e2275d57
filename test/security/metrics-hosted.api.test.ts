import request from 'supertest';

import { buildTestApp } from '../helpers/build-test-app.js';

// Issue 40, item 6: /metrics tells account counts and every route's traffic. A hosted sandbox
// (PUBLIC_URL not loopback) does not show them to strangers: without ADMIN_TOKEN they are off,
// with it they need it; METRICS_OPEN=true opens them on purpose. A local sandbox keeps them open.

const HOSTED = { PUBLIC_URL: 'https://sandbox.example.com' };
const PROMETHEUS = /sandbox_http_requests_total|nodejs_heap_size_used_bytes/;

describe('/metrics on a hosted sandbox', () => {
  it('is off without ADMIN_TOKEN: a 403 saying why and how to open it, with nothing of the metrics', async () => {
    const t = await buildTestApp({ env: HOSTED });
    // Traffic the metrics would show.
    await request(t.app).get('/v1/locations').expect(401);
    const res = await request(t.app).get('/metrics').expect(403);
    expect(res.body).toEqual({
      error: 'admin_disabled',
      message:
        'The metrics of this sandbox are off: it is hosted (its PUBLIC_URL is not loopback) and has no ADMIN_TOKEN; its operator can set ADMIN_TOKEN (then send it as a Bearer token) or METRICS_OPEN=true',
    });
    expect(res.text).not.toMatch(PROMETHEUS);
    // Not with a made-up token either.
    await request(t.app).get('/metrics').set('Authorization', 'Bearer guess').expect(403);
  });

  it('with ADMIN_TOKEN needs it: none is a 401, a wrong one a 403, the right one the metrics', async () => {
    const t = await buildTestApp({ env: { ...HOSTED, ADMIN_TOKEN: 'operator-secret' } });
    await request(t.app).get('/metrics').expect(401);
    await request(t.app).get('/metrics').set('Authorization', 'Bearer operator-secret-not').expect(403);
    const res = await request(t.app).get('/metrics').set('Authorization', 'Bearer operator-secret').expect(200);
    expect(res.text).toMatch(PROMETHEUS);
  });

  it('METRICS_OPEN=true opens it for anyone, as the operator chose', async () => {
    const t = await buildTestApp({ env: { ...HOSTED, METRICS_OPEN: 'true' } });
    expect((await request(t.app).get('/metrics').expect(200)).text).toMatch(PROMETHEUS);
  });
});

describe('/metrics on a local sandbox', () => {
  it('is open without ADMIN_TOKEN, as before, and needs ADMIN_TOKEN once it is set', async () => {
    const open = await buildTestApp({ env: { PUBLIC_URL: 'http://localhost:8080' } });
    expect((await request(open.app).get('/metrics').expect(200)).text).toMatch(PROMETHEUS);
    const guarded = await buildTestApp({ env: { ADMIN_TOKEN: 'local-secret' } });
    await request(guarded.app).get('/metrics').expect(401);
    await request(guarded.app).get('/metrics').set('Authorization', 'Bearer local-secret').expect(200);
  });
});
