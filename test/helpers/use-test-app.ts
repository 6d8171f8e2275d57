import { buildTestApp, type TestApp } from './build-test-app.js';
import { live } from './live.js';

/**
 * A fresh test app (buildTestApp with `options`) for each test of the file (or describe) that
 * calls it, made before the test. Call it where `beforeEach` may be called; use what it answers
 * inside the tests (see live.ts).
 */
export function useTestApp(options?: Parameters<typeof buildTestApp>[0]): TestApp {
  let app: TestApp | null = null;
  beforeEach(async () => {
    app = await buildTestApp(options);
  });
  afterEach(() => {
    app = null;
  });
  return live('the test app', () => app);
}
