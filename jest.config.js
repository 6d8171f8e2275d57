// ESM + TypeScript through @swc/jest; see toolchain notes in the README.
// On a machine of two cores jest runs the suites one after another in a single process, whose heap
// grew by about 20 MB a test file (--logHeapUsage; what each file loaded stays, under
// --experimental-vm-modules): the whole run ended near V8's default heap cap of 4 GB there, and a
// few suites more went over it, so `npm run jest` runs with --max-old-space-size=6144.
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
  // Checks every response of the app against /openapi.json (test/helpers/openapi-check.ts).
  setupFilesAfterEnv: ['<rootDir>/test/helpers/openapi-check-setup.ts'],
};
