// StrykerJS for `npm run mutation` (mutation/run.mjs): a report like the bench, not part of
// .ci/run. It changes the code of the modules below one small change (a mutant) at a time and
// runs the tests that cover that change; a mutant no test notices is a blind spot.
import { fileURLToPath } from 'node:url';

/** The modules where a silent break is costly, by the name the report prints. */
export const MUTATION_MODULES = [
  // Every mutant left alive in the sender and its address checks is a failure of the run: their
  // lines keep the sandbox's requests off private addresses and its reads bounded.
  { name: 'webhook sending', files: ['src/webhooks/sender.ts', 'src/webhooks/address-policy.ts'], noSurvivors: true },
  { name: 'webhook assessment', files: ['src/webhooks/assess.ts'] },
  { name: 'webhook scheduling', files: ['src/webhooks/dispatcher.ts'] },
  { name: 'endpoint policy', files: ['src/subscriptions/endpoint-policy.ts'] },
  { name: 'OAuth tokens and codes', files: ['src/auth/tokens.ts'] },
  { name: 'faults', files: ['src/faults/faults.ts'] },
  { name: 'journal', files: ['src/journal/journal.ts', 'src/journal/routes.ts'] },
  { name: 'readings roll-ups', files: ['src/readings/rollup.ts'] },
];

/**
 * Suites that cannot see a mutant (they run the built server or other processes), are slow and
 * random (the fuzz test), or check the dashboard's bundle against real paths (the sandbox's
 * node_modules is a link).
 */
const OUT_OF_SCOPE_TESTS = [
  '\\.browser\\.test\\.ts$',
  '/test/cli/',
  '/test/docs/',
  '/test/first-hour/',
  '/test/tools/',
  '/test/contracts/',
  '/test/server/',
  '/test/http/fuzz\\.api\\.test\\.ts$',
  '/test/dashboard/assets\\.test\\.ts$',
];

export default {
  mutate: MUTATION_MODULES.flatMap((m) => m.files),
  // Not copied into the sandbox: builds and run-time output (a jest run elsewhere rebuilds dist/ under it).
  ignorePatterns: ['/dist', '/data', '/coverage', '/test-artifacts', '/.tls', '/reports'],
  // Stryker's jest runner, each mutant running only the test files of the tests that covered it (jest-covering-files.mjs).
  testRunner: 'jest-covering-files',
  appendPlugins: ['./mutation/jest-covering-files.mjs', './mutation/survivors-as-found.mjs'],
  jest: {
    configFile: 'jest.config.js',
    config: {
      // src among the roots: jest then knows a test's imports down to the mutated file (through
      // the test app, app.ts and deps.ts), and relates every test that reaches it.
      roots: ['<rootDir>/test', '<rootDir>/src'],
      testPathIgnorePatterns: ['/node_modules/', '\\.redis\\.test\\.ts$', ...OUT_OF_SCOPE_TESTS],
      // A mutant stops at its first failing test (bail-environment.cjs).
      testEnvironment: fileURLToPath(new URL('./bail-environment.cjs', import.meta.url)),
      // The dashboard's bundle is built once, by buildCommand, not before every mutant's run.
      globalSetup: undefined,
    },
    // The measuring run runs the tests that import a mutated file, directly or not; then each
    // mutant runs only the tests that ran its code there (coverageAnalysis perTest).
    enableFindRelatedTests: true,
  },
  buildCommand: 'node mutation/build-assets.mjs',
  // The project's jest runs as native ES modules (see the `jest` script in package.json).
  testRunnerNodeArgs: ['--experimental-vm-modules', '--disable-warning=ExperimentalWarning'],
  coverageAnalysis: 'perTest',
  // Mutants that do not compile are dropped before any test runs.
  checkers: ['typescript'],
  tsconfigFile: 'mutation/tsconfig.json',
  // A mutant in a module-level constant runs when the module loads, so every test covers it and
  // it would need the whole suite once for itself: those are left out (listed as ignored).
  ignoreStatic: true,
  concurrency: 2,
  // Jest's native-ESM module registry is not freed between runs (the runner's memory grows by
  // about half a GB a minute and reaches V8's heap limit in ten): a fresh runner every 40 mutants.
  maxTestRunnerReuse: 40,
  // A run keeps its results; the next one tests again only the mutants whose code or covering
  // tests changed (`npm run mutation -- --full` tests every mutant).
  incremental: true,
  incrementalFile: 'reports/mutation/incremental.json',
  timeoutMS: 10_000,
  reporters: ['clear-text', 'progress', 'html', 'json', 'survivors-as-found'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
