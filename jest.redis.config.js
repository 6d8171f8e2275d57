// The suites that run against a real Redis (`npm run test:redis`): the store contract on Redis,
// and several replicas of the sandbox on one Redis. They start redis-server themselves on a free
// port (or use REDIS_URL), and spawn `node dist/main.js` replicas, so the script builds first.
import base from './jest.config.js';

export default {
  ...base,
  testMatch: ['**/*.redis.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  testTimeout: 60000,
};
