import request from 'supertest';

import { buildTestApp, TEST_START, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';
import { hourlyVolumes } from '../helpers/readings.js';
import { advance } from './given.js';

// TEST_START is 15:30Z: readings from the next whole hour, 16:00Z.
const hourStart = TEST_START.getTime() + 30 * 60_000;

const volumes = (t: TestApp): Promise<number[]> => hourlyVolumes(t, hourStart);

describe('readings tell the same story as a scenario', () => {
  it('add the leak flow of slow-leak-escalates to the hours it covers', async () => {
    const quiet = await buildTestApp();
    await advance(quiet, 4 * 3600).expect(200);
    const baseline = await volumes(quiet);

    const t = await buildTestApp();
    await request(t.app)
      .post('/sandbox/scenarios/slow-leak-escalates/runs')
      .set(bearer(DEMO_API_KEY))
      .send({ locationId: DEMO_LOCATION_ID })
      .expect(201);
    await advance(t, 4 * 3600).expect(200);
    const withLeak = await volumes(t);

    // 16:00-17:00Z: the 6.5 gpm burst until it was fixed at 16:10 (start + 40 min), then the slow leak's 0.4 gpm again.
    expect(withLeak[0]! - baseline[0]!).toBeCloseTo(10 * 6.5 + 50 * 0.4, 0);
    // 17:00-18:00Z: the slow leak until it was repaired at 17:30 (TEST_START + 2 h).
    expect(withLeak[1]! - baseline[1]!).toBeCloseTo(30 * 0.4, 0);
    expect(withLeak[2]).toBeCloseTo(baseline[2]!, 5);
  });

  it('scale the use of the hours a setUsage step covers (monitor-offline: x2.5)', async () => {
    const quiet = await buildTestApp();
    await advance(quiet, 4 * 3600).expect(200);
    const baseline = await volumes(quiet);

    const t = await buildTestApp();
    await request(t.app)
      .post('/sandbox/scenarios/monitor-offline/runs')
      .set(bearer(DEMO_API_KEY))
      .send({ locationId: DEMO_LOCATION_ID })
      .expect(201);
    await advance(t, 4 * 3600).expect(200);
    const scaled = await volumes(t);
    // Volumes are rounded to thousandths of a gallon.
    scaled.forEach((v, i) => expect(v).toBeCloseTo(baseline[i]! * 2.5, 2));
  });
});
