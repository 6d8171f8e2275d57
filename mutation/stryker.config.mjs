// StrykerJS for `npm run mutation` (mutation/run.mjs): a report like the bench, not part of
// .ci/run. It changes the code of the modules below one small change (a mutant) at a time and
// runs the tests that cover that change; a mutant no test notices is a blind spot.
import { fileURLToPath } from 'node:url';

/** The modules where a silent break is costly, by the name the report prints. */
export const MUTATION_MODULES = [
  // Every mutant left alive in the sender is a failure of the run: its lines keep the sandbox from
  // being bounced to private addresses or made to read without limit.
  { name: 'webhook sending', files: ['src/webhooks/sender.ts'], noSurvivors: true },
  { name: 'webhook assessment', files: ['src/webhooks/assess.ts'] },
  { name: 'webhook scheduling', files: ['src/webhooks/dispatcher.ts'] },
  { name: 'endpoint policy', files: ['src/subscriptions/endpoint-policy.ts'] },
  { name: 'OAuth tokens and codes', files: ['src/auth/tokens.ts'] },
  { name: 'faults', files: ['src/faults/faults.ts'] },
  { name: 'journal', files: ['src/journal/journal.ts', 'src/journal/routes.ts'] },
  { name: 'readings roll-ups', files: ['src/readings/rollup.ts'] },
];

/** Suites that cannot see a mutant (they run the built server or other processes), or are slow and random. */
const OUT_OF_PROCESS_TESTS = ['\\.browser\\.test\\.ts$', '/test/cli/', '/test/docs/', '/test/first-hour/', '/test/tools/', '/test/contracts/', '/test/server/', '/test/http/fuzz\\.api\\.test\\.ts$'];

export default {
  mutate: MUTATION_MODULES.flatMap((m) => m.files),
  // Stryker's jest runner, each mutant running only the test files of the tests that covered it (jest-covering-files.mjs).
  testRunner: 'jest-covering-files',
  appendPlugins: ['./mutation/jest-covering-files.mjs'],
  jest: {
    configFile: 'jest.config.js',
    config: {
      testPathIgnorePatterns: ['/node_modules/', '\\.redis\\.test\\.ts$', ...OUT_OF_PROCESS_TESTS],
      // A mutant stops at its first failing test (bail-environment.cjs).
      testEnvironment: fileURLToPath(new URL('./bail-environment.cjs', import.meta.url)),
    },
    // Each mutant runs only the test files that import its file, and of those only the tests
    // that ran its code in the first, measuring run (coverageAnalysis perTest).
    enableFindRelatedTests: true,
  },
  // The project's jest runs as native ES modules (see the `jest` script in package.json).
  testRunnerNodeArgs: ['--experimental-vm-modules', '--disable-warning=ExperimentalWarning'],
  coverageAnalysis: 'perTest',
  // Mutants that do not compile are dropped before any test runs.
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.json',
  // A mutant in a module-level constant runs when the module loads, so every test covers it and
  // it would need the whole suite once for itself: those are left out (listed as ignored).
  ignoreStatic: true,
  concurrency: 2,
  timeoutMS: 10_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
