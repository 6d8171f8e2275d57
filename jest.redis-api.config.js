// Every API suite (*.api.test.ts) run again with every test app on a real Redis (TEST_REDIS_URL,
// see test/helpers/build-test-app.ts): webhooks, redelivery, retries, the delivery log, logins,
// clocks and scenarios behave on Redis as on the embedded store. Part of `npm run test:redis`.
import base from './jest.config.js';

export default {
  ...base,
  testMatch: ['<rootDir>/test/**/*.api.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  globalSetup: '<rootDir>/test/redis-api/global-setup.mjs',
  globalTeardown: '<rootDir>/test/redis-api/global-teardown.mjs',
  setupFilesAfterEnv: ['<rootDir>/test/redis-api/after-each-file.ts'],
};
