import request from 'supertest';

import type { TestApp } from './build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID } from './demo.js';

/** The demo location's water use, hour by hour, for `hours` hours from `fromMs` (gallons), as GET .../readings/water-usage?groupBy=hour answers it. */
export async function hourlyVolumes(t: TestApp, fromMs: number, hours = 3): Promise<number[]> {
  const res = await request(t.app)
    .get(`/v1/locations/${DEMO_LOCATION_ID}/readings/water-usage`)
    .query({
      startTime: new Date(fromMs).toISOString(),
      endTime: new Date(fromMs + hours * 3_600_000).toISOString(),
      groupBy: 'hour',
    })
    .set(bearer(DEMO_API_KEY))
    .expect(200);
  return (res.body.readings as { volume: number }[]).map((r) => r.volume);
}
