import request from 'supertest';

import type { TestApp } from './build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID } from './demo.js';

/** Asks for a subscription of `endpoint` to a location (POST /v1/locations/{id}/subscriptions), as a partner's app does; expect its status at the call. */
export function postSubscription(
  t: TestApp,
  endpoint: string,
  locationId = DEMO_LOCATION_ID,
  apiKey = DEMO_API_KEY,
): request.Test {
  return request(t.app).post(`/v1/locations/${locationId}/subscriptions`).set(bearer(apiKey)).send({ endpoint });
}
