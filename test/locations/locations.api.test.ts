import request from 'supertest';

import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID, DEMO_LOCATIONS, OTHER_LOCATION_ID } from '../helpers/demo.js';
import { setHomeAway } from '../helpers/home-away.js';
import { sendRaw } from '../helpers/raw-body.js';
import { useTestApp } from '../helpers/use-test-app.js';
import { endAlert, startAlert } from '../webhooks/support.js';

const LOCATION_KEYS = ['alerts', 'devices', 'homeAway', 'locationId', 'name', 'subscriptionIds'];
const DEVICE_KEYS = ['calibrated', 'connected', 'deviceId', 'type'];

const t = useTestApp();

describe('GET /v1/locations', () => {
  it('returns the paged envelope with the account locations and exactly the documented keys', async () => {
    const res = await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(200);
    expect(Object.keys(res.body).sort()).toEqual(['locations', 'page', 'pageCount', 'perPage', 'total']);
    expect(res.body).toMatchObject({ page: 1, perPage: 50, pageCount: 1, total: DEMO_LOCATIONS.length });
    expect(res.body.locations.map((l: { locationId: string }) => l.locationId)).toEqual(
      DEMO_LOCATIONS.map((l) => l.locationId),
    );
    for (const location of res.body.locations) {
      expect(Object.keys(location).sort()).toEqual(LOCATION_KEYS);
      expect(location.alerts).toEqual([]);
      for (const device of location.devices) expect(Object.keys(device).sort()).toEqual(DEVICE_KEYS);
    }
  });

  it('honours page and perPage', async () => {
    const res = await request(t.app).get('/v1/locations?page=2&perPage=1').set(bearer(DEMO_API_KEY)).expect(200);
    expect(res.body).toMatchObject({
      page: 2,
      perPage: 1,
      pageCount: DEMO_LOCATIONS.length,
      total: DEMO_LOCATIONS.length,
    });
    expect(res.body.locations).toHaveLength(1);
    expect(res.body.locations[0].locationId).toBe(DEMO_LOCATIONS[1]!.locationId);
  });

  it('answers a page past the end with an empty list', async () => {
    const res = await request(t.app).get('/v1/locations?page=9').set(bearer(DEMO_API_KEY)).expect(200);
    expect(res.body.locations).toEqual([]);
    expect(res.body.total).toBe(DEMO_LOCATIONS.length);
  });

  it.each([
    ['page=0', 'page'],
    ['page=-1', 'page'],
    ['page=1.5', 'page'],
    ['perPage=101', 'perPage'],
    ['perPage=0', 'perPage'],
    ['perPage=ten', 'perPage'],
    ['page=1&page=2', 'page'],
  ])('refuses %s with a 400 naming %s', async (query, parameter) => {
    const res = await request(t.app).get(`/v1/locations?${query}`).set(bearer(DEMO_API_KEY)).expect(400);
    expect(res.body).toMatchObject({ error: 'invalid_parameter', parameter });
    expect(res.body.message).toContain(parameter);
  });
});

describe('GET /v1/locations/{id}', () => {
  it('returns one location', async () => {
    const res = await request(t.app).get(`/v1/locations/${DEMO_LOCATION_ID}`).set(bearer(DEMO_API_KEY)).expect(200);
    expect(res.body.locationId).toBe(DEMO_LOCATION_ID);
    expect(Object.keys(res.body).sort()).toEqual(LOCATION_KEYS);
  });

  it.each(['invalid-locationid', OTHER_LOCATION_ID, '00000000-0000-4000-8000-000000000000'])(
    'answers 404 for %s',
    async (id) => {
      const res = await request(t.app).get(`/v1/locations/${id}`).set(bearer(DEMO_API_KEY)).expect(404);
      expect(res.body.error).toBe('not_found');
      expect(typeof res.body.message).toBe('string');
    },
  );
});

describe('GET /v1/locations/{id} after changes (its answer is kept with the account document)', () => {
  /** The single location's answer, which must be the list's presentation of it, byte for byte. */
  async function answered(): Promise<{ homeAway: string; alerts: unknown[] }> {
    const one = await request(t.app).get(`/v1/locations/${DEMO_LOCATION_ID}`).set(bearer(DEMO_API_KEY)).expect(200);
    const all = await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(200);
    const listed = (all.body.locations as { locationId: string }[]).find((l) => l.locationId === DEMO_LOCATION_ID);
    expect(one.text).toBe(JSON.stringify(listed));
    expect(one.headers['content-type']).toBe('application/json; charset=utf-8');
    return one.body as { homeAway: string; alerts: unknown[] };
  }

  it('follows every change of the account: its homeAway, an alert started, the alert ended', async () => {
    expect(await answered()).toMatchObject({ homeAway: 'home', alerts: [] });
    expect(await answered()).toMatchObject({ homeAway: 'home', alerts: [] });
    await setHomeAway(t, 'away').expect(200);
    expect((await answered()).homeAway).toBe('away');
    const alert = await startAlert(t, { type: 'lowLeak' }).expect(201);
    expect((await answered()).alerts).toHaveLength(1);
    await endAlert(t, alert.body.alertId as string).expect(200);
    expect((await answered()).alerts).toHaveLength(0);
  });
});

describe('PUT /v1/locations/{id}', () => {
  it('switches homeAway and changes nothing else', async () => {
    const before = await request(t.app).get(`/v1/locations/${DEMO_LOCATION_ID}`).set(bearer(DEMO_API_KEY));
    const res = await request(t.app)
      .put(`/v1/locations/${DEMO_LOCATION_ID}`)
      .set(bearer(DEMO_API_KEY))
      .send({ homeAway: 'away' })
      .expect(200);
    expect(res.body).toEqual({ ...before.body, homeAway: 'away' });
    const after = await request(t.app).get(`/v1/locations/${DEMO_LOCATION_ID}`).set(bearer(DEMO_API_KEY));
    expect(after.body.homeAway).toBe('away');
  });

  it.each([
    [{ homeAway: 'vacation' }, 'homeAway'],
    [{}, 'homeAway'],
    [{ homeAway: 'away', name: 'New name' }, 'name'],
    [['away'], 'body'],
  ])('refuses %j with a 400 naming %s and leaves the location unchanged', async (body, parameter) => {
    const res = await request(t.app)
      .put(`/v1/locations/${DEMO_LOCATION_ID}`)
      .set(bearer(DEMO_API_KEY))
      .send(body as object)
      .expect(400);
    expect(res.body.parameter).toBe(parameter);
    const after = await request(t.app).get(`/v1/locations/${DEMO_LOCATION_ID}`).set(bearer(DEMO_API_KEY));
    expect(after.body.homeAway).toBe('home');
  });

  it('refuses a body that is not JSON with 415', async () => {
    const res = await sendRaw(t, 'put', `/v1/locations/${DEMO_LOCATION_ID}`, 'text/plain', 'homeAway=away').expect(415);
    expect(res.body.error).toBe('unsupported_media_type');
  });
});
