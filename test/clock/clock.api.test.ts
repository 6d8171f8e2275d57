import request from 'supertest';

import { TEST_START } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, OTHER_API_KEY } from '../helpers/demo.js';
import { sendRaw } from '../helpers/raw-body.js';
import { useTestApp } from '../helpers/use-test-app.js';

const t = useTestApp();

const getClock = (key = DEMO_API_KEY): request.Test => request(t.app).get('/sandbox/clock').set(bearer(key));
const postClock = (body: unknown, key = DEMO_API_KEY): request.Test =>
  request(t.app)
    .post('/sandbox/clock')
    .set(bearer(key))
    .send(body as object);
const iso = (ms: number): string => new Date(ms).toISOString();

describe('GET /sandbox/clock', () => {
  it('starts at the process time, with no offset, running', async () => {
    const res = await getClock().expect(200);
    expect(res.body).toEqual({ now: TEST_START.toISOString(), offsetSeconds: 0, frozen: false });
  });

  it('without credentials answers 401 like /v1', async () => {
    await request(t.app).get('/sandbox/clock').expect(401);
  });
});

describe('POST /sandbox/clock', () => {
  it('with advanceSeconds moves the account clock forward and keeps it running with the process clock', async () => {
    const res = await postClock({ advanceSeconds: 3600 }).expect(200);
    expect(res.body).toEqual({ now: iso(TEST_START.getTime() + 3_600_000), offsetSeconds: 3600, frozen: false });
    t.clock.advance(10_000);
    expect((await getClock()).body.now).toBe(iso(TEST_START.getTime() + 3_610_000));
  });

  it('with now sets the instant, given as ISO 8601 with an offset or as epoch seconds', async () => {
    await postClock({ now: '2026-07-04T08:00:00-04:00' }).expect(200);
    expect((await getClock()).body.now).toBe('2026-07-04T12:00:00.000Z');
    await postClock({ now: Date.parse('2026-08-01T00:00:00Z') / 1000 }).expect(200);
    expect((await getClock()).body.now).toBe('2026-08-01T00:00:00.000Z');
  });

  it('with now in the past moves the clock back', async () => {
    const res = await postClock({ now: '2025-01-01T00:00:00Z' }).expect(200);
    expect(res.body).toMatchObject({ now: '2025-01-01T00:00:00.000Z', frozen: false });
    expect(res.body.offsetSeconds).toBe((Date.parse('2025-01-01T00:00:00Z') - TEST_START.getTime()) / 1000);
  });

  it('with frozen true stops the clock at its current instant while the process clock runs', async () => {
    await postClock({ advanceSeconds: 60 }).expect(200);
    const res = await postClock({ frozen: true }).expect(200);
    expect(res.body).toMatchObject({ now: iso(TEST_START.getTime() + 60_000), frozen: true });
    t.clock.advance(3_600_000);
    expect((await getClock()).body).toMatchObject({ now: iso(TEST_START.getTime() + 60_000), frozen: true });
  });

  it('with frozen false lets a frozen clock run again from the instant it shows', async () => {
    await postClock({ frozen: true }).expect(200);
    t.clock.advance(3_600_000);
    const res = await postClock({ frozen: false }).expect(200);
    expect(res.body).toEqual({ now: TEST_START.toISOString(), offsetSeconds: -3600, frozen: false });
    t.clock.advance(1000);
    expect((await getClock()).body.now).toBe(iso(TEST_START.getTime() + 1000));
  });

  it('keeps a frozen clock frozen when it is set or advanced', async () => {
    await postClock({ frozen: true }).expect(200);
    expect((await postClock({ advanceSeconds: 30 }).expect(200)).body).toMatchObject({
      now: iso(TEST_START.getTime() + 30_000),
      frozen: true,
    });
    expect((await postClock({ now: '2026-05-01T00:00:00Z' }).expect(200)).body).toMatchObject({
      now: '2026-05-01T00:00:00.000Z',
      frozen: true,
    });
  });

  it('combines now with frozen: true to freeze at an exact instant', async () => {
    const res = await postClock({ now: '2026-12-24T18:00:00Z', frozen: true }).expect(200);
    expect(res.body).toMatchObject({ now: '2026-12-24T18:00:00.000Z', frozen: true });
    t.clock.advance(5000);
    expect((await getClock()).body.now).toBe('2026-12-24T18:00:00.000Z');
  });

  it('combines advanceSeconds with frozen: true to freeze the clock at the advanced instant', async () => {
    const res = await postClock({ advanceSeconds: 90, frozen: true }).expect(200);
    expect(res.body).toMatchObject({ now: iso(TEST_START.getTime() + 90_000), frozen: true });
  });

  it('applies two advances sent at the same time one after the other', async () => {
    await Promise.all([postClock({ advanceSeconds: 60 }).expect(200), postClock({ advanceSeconds: 60 }).expect(200)]);
    expect((await getClock()).body.now).toBe(iso(TEST_START.getTime() + 120_000));
  });

  it('moves only the calling account clock', async () => {
    await postClock({ advanceSeconds: 86_400, frozen: true }).expect(200);
    expect((await getClock(OTHER_API_KEY)).body).toEqual({
      now: TEST_START.toISOString(),
      offsetSeconds: 0,
      frozen: false,
    });
  });

  it.each([
    [{}, 'body', 'now, frozen, advanceSeconds or realTime'],
    [[], 'body', 'JSON object'],
    ['"soon"', 'body', 'JSON object'],
    [{ advanceSeconds: 0 }, 'advanceSeconds', 'more than 0'],
    [{ advanceSeconds: -60 }, 'advanceSeconds', 'to go back in time set {"now"'],
    [{ advanceSeconds: '60' }, 'advanceSeconds', 'number of seconds'],
    [{ advanceSeconds: 315_360_001 }, 'advanceSeconds', 'at most 315360000'],
    [{ now: 'tomorrow' }, 'now', 'ISO 8601'],
    [{ now: '2026-03-10T15:30:00' }, 'now', 'with a time zone'],
    [{ now: '2026-02-30T15:30:00Z' }, 'now', 'ISO 8601'],
    [{ now: 1_773_156_600_000 }, 'now', 'looks like milliseconds'],
    [{ now: '1990-01-01T00:00:00Z' }, 'now', 'year 2000 to the year 2099'],
    [{ now: true }, 'now', 'ISO 8601'],
    [{ frozen: 'yes' }, 'frozen', 'true or false'],
    [{ now: '2026-03-10T15:30:00Z', advanceSeconds: 60 }, 'advanceSeconds', 'not both'],
    [{ advance: 60 }, 'advance', 'remove "advance"'],
  ])('refuses %j with a 400 naming %s, and leaves the clock as it was', async (body, parameter, rule) => {
    const res = await sendRaw(
      t,
      'post',
      '/sandbox/clock',
      'application/json',
      typeof body === 'string' ? body : JSON.stringify(body),
    ).expect(400);
    expect(res.body).toMatchObject({ error: 'invalid_parameter', parameter });
    expect(res.body.message).toContain(rule);
    expect((await getClock()).body).toEqual({ now: TEST_START.toISOString(), offsetSeconds: 0, frozen: false });
  });

  it('refuses a body that is not JSON with 415', async () => {
    const res = await sendRaw(t, 'post', '/sandbox/clock', 'text/plain', 'advanceSeconds=60').expect(415);
    expect(res.body.error).toBe('unsupported_media_type');
  });

  it('answers 405 with Allow for other methods', async () => {
    const res = await request(t.app).delete('/sandbox/clock').set(bearer(DEMO_API_KEY)).expect(405);
    expect(res.headers['allow']).toBe('GET, POST, HEAD');
  });
});
