import request from 'supertest';

import type { TestApp } from './build-test-app.js';
import { bearer, DEMO_API_KEY } from './demo.js';

/** Queues a fault for the account (POST /sandbox/faults), as a partner's test does; expect its status at the call. */
export function injectFault(t: TestApp, fault: object, apiKey = DEMO_API_KEY): request.Test {
  return request(t.app).post('/sandbox/faults').set(bearer(apiKey)).send(fault);
}
