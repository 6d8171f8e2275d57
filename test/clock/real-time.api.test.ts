import request from 'supertest';

import { TEST_START } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, OTHER_API_KEY } from '../helpers/demo.js';
import { useTestApp } from '../helpers/use-test-app.js';

const t = useTestApp();

const postClock = (body: unknown, key = DEMO_API_KEY) =>
  request(t.app)
    .post('/sandbox/clock')
    .set(bearer(key))
    .send(body as object);

describe('POST /sandbox/clock {"realTime": true}', () => {
  it('goes back to the wall clock from a moved clock: running, no offset', async () => {
    await postClock({ advanceSeconds: 86_400 }).expect(200);
    const res = await postClock({ realTime: true }).expect(200);
    expect(res.body).toEqual({ now: TEST_START.toISOString(), offsetSeconds: 0, frozen: false });
    t.clock.advance(5000);
    expect((await request(t.app).get('/sandbox/clock').set(bearer(DEMO_API_KEY))).body.now).toBe(
      new Date(TEST_START.getTime() + 5000).toISOString(),
    );
  });

  it('unfreezes a frozen clock, and leaves other accounts alone', async () => {
    await postClock({ now: '2025-01-01T00:00:00Z', frozen: true }).expect(200);
    await postClock({ advanceSeconds: 60 }, OTHER_API_KEY).expect(200);
    expect((await postClock({ realTime: true }).expect(200)).body).toMatchObject({ offsetSeconds: 0, frozen: false });
    expect((await request(t.app).get('/sandbox/clock').set(bearer(OTHER_API_KEY))).body.offsetSeconds).toBe(60);
  });

  it.each([
    [{ realTime: false }, 'realTime'],
    [{ realTime: 'yes' }, 'realTime'],
    [{ realTime: true, advanceSeconds: 5 }, 'advanceSeconds'],
  ])('refuses %j with a 400 naming %s', async (body, parameter) => {
    const res = await postClock(body).expect(400);
    expect(res.body).toMatchObject({ error: 'invalid_parameter', parameter });
  });
});
