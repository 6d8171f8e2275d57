// `npm run test:containers` (after `npm test` and `npm run test:redis` in .ci/run; never part of
// `npm test`, which needs only Node and npm): the Testcontainers module against a real container
// engine (DOCKER_HOST: Docker, or podman's Docker-compatible socket), with an image of the
// runtime stage's files that test/containers/global-setup.mjs builds. The docs' example
// (examples/testcontainers/) runs here too, importing the package by name.
import base from './jest.config.js';

export default {
  ...base,
  roots: ['<rootDir>/test', '<rootDir>/examples'],
  testMatch: ['**/*.containers.test.ts', '**/examples/testcontainers/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  moduleNameMapper: {
    '^water-sandbox/(client|testcontainers)$': '<rootDir>/src/$1/index.ts',
    ...base.moduleNameMapper,
  },
  globalSetup: '<rootDir>/test/containers/global-setup.mjs',
  setupFilesAfterEnv: [],
  testTimeout: 120000,
};
