// ESM + TypeScript through @swc/jest; see toolchain notes in the README.
// A process that runs test files keeps about 20 MB of each under --experimental-vm-modules (jest's
// ESM leak, jestjs/jest#14605): one process for the whole run ended near V8's 4 GB heap cap. So the
// files run in worker processes (jest uses them, even on a machine of two cores where it would
// otherwise run everything in its own process, once workerIdleMemoryLimit is set), each replaced
// after a file that leaves its heap above 1 GB.
// Suites that need a real Redis (*.redis.test.ts) run with `npm run test:redis` (jest.redis.config.js),
// those that need a container engine (*.containers.test.ts) with `npm run test:containers`.
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '\\.redis\\.test\\.ts$', '\\.containers\\.test\\.ts$'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript' }, target: 'es2023' }, module: { type: 'es6' } },
    ],
  },
  // The dashboard's browser bundle (dist/dashboard-assets), built or found up to date.
  globalSetup: '<rootDir>/test/global-setup.mjs',
  testTimeout: 20000,
  workerIdleMemoryLimit: '1GB',
  // Checks every response of the app against /openapi.json (test/helpers/openapi-check.ts).
  setupFilesAfterEnv: ['<rootDir>/test/helpers/openapi-check-setup.ts'],
};
