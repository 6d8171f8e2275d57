import request from 'supertest';

import type { TestApp } from './build-test-app.js';
import { bearer, DEMO_API_KEY } from './demo.js';

/** A POST or PUT whose body goes exactly as written, under the given Content-Type: for bodies a JSON client would never send. */
export function sendRaw(
  t: TestApp,
  method: 'post' | 'put',
  path: string,
  contentType: string,
  body: string,
  apiKey = DEMO_API_KEY,
): request.Test {
  return request(t.app)[method](path).set(bearer(apiKey)).set('Content-Type', contentType).send(body);
}
