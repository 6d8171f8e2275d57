import request from 'supertest';

import type { TestApp } from './build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID } from './demo.js';

/** Switches the demo location to home or away (PUT /v1/locations/{id}), as a partner's app does; expect its status at the call. */
export function setHomeAway(t: TestApp, homeAway: 'home' | 'away'): request.Test {
  return request(t.app).put(`/v1/locations/${DEMO_LOCATION_ID}`).set(bearer(DEMO_API_KEY)).send({ homeAway });
}
