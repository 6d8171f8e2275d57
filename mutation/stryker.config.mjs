// StrykerJS for `npm run mutation` (mutation/run.mjs): a report like the bench, not part of
// .ci/run. It changes the code of the modules below one small change (a mutant) at a time and
// runs the tests that cover that change; a mutant no test notices is a blind spot.
import { fileURLToPath } from 'node:url';

/**
 * The modules where a silent break is costly, by the name the report prints, each with its own
 * tests: a module's mutants run against those only (its unit tests and the API suites of its
 * feature), not against every suite that happens to pass through it. That is what keeps a run
 * short: most API suites reach the sender or the journal, and a mutant that hangs waits for the
 * tests that cover it, one and a half times their time.
 */
export const MUTATION_MODULES = [
  // Every mutant left alive in the sender and its address checks is a failure of the run: their
  // lines keep the sandbox's requests off private addresses and its reads bounded.
  {
    name: 'webhook sending',
    files: ['src/webhooks/sender.ts', 'src/webhooks/address-policy.ts'],
    tests: [
      'test/webhooks/sender.test.ts',
      'test/webhooks/address-policy.test.ts',
      'test/webhooks/sender-safety.api.test.ts',
      'test/security/connect-check.api.test.ts',
      'test/security/etc-hosts.test.ts',
    ],
    noSurvivors: true,
  },
  {
    name: 'webhook assessment',
    files: ['src/webhooks/assess.ts'],
    tests: [
      'test/webhooks/assess.test.ts',
      'test/webhooks/sender-safety.api.test.ts',
      'test/webhooks/delivery.api.test.ts',
    ],
  },
  {
    name: 'webhook scheduling',
    files: ['src/webhooks/dispatcher.ts', 'src/webhooks/delivery-transitions.ts'],
    tests: [
      'test/webhooks/delivery-transitions.test.ts',
      'test/webhooks/dispatcher-failures.test.ts',
      'test/webhooks/delivery.api.test.ts',
      'test/webhooks/deliveries.api.test.ts',
      'test/webhooks/in-flight.api.test.ts',
      'test/webhooks/headers-and-duplicates.api.test.ts',
      'test/security/fairness.api.test.ts',
      'test/security/connect-check.api.test.ts',
      'test/readiness/drills.api.test.ts',
    ],
  },
  {
    name: 'endpoint policy',
    files: ['src/subscriptions/endpoint-policy.ts'],
    tests: ['test/subscriptions/endpoint-policy.test.ts', 'test/subscriptions/subscriptions.api.test.ts'],
  },
  {
    name: 'OAuth tokens and codes',
    files: ['src/auth/tokens.ts'],
    tests: ['test/auth/oauth-logic.test.ts', 'test/auth/token.api.test.ts', 'test/auth/token-delivery.api.test.ts'],
  },
  {
    name: 'faults',
    files: ['src/faults/faults.ts'],
    tests: ['test/faults/faults.test.ts', 'test/sandbox/controls.api.test.ts', 'test/readiness/drills.api.test.ts'],
  },
  {
    name: 'journal',
    files: ['src/journal/journal.ts', 'src/journal/routes.ts'],
    tests: ['test/journal/journal.api.test.ts'],
  },
  {
    name: 'readings roll-ups',
    files: [
      'src/readings/rollup.ts',
      'src/readings/model-sums.ts',
      'src/readings/bucket-starts.ts',
      'src/readings/bounded-memo.ts',
    ],
    tests: [
      'test/readings/rollup.test.ts',
      'test/readings/query.test.ts',
      'test/readings/readings.api.test.ts',
      'test/readings/year-shape.api.test.ts',
    ],
  },
];

export const reportNameOf = (name) => name.toLowerCase().replace(/[^a-z0-9]+/g, '-');

/**
 * Stryker's configuration for a run on some modules (mutation/run.mjs makes one run per module):
 * their files mutated, their tests run.
 */
export function configFor(
  modules,
  {
    mutate = modules.flatMap((m) => m.files),
    reportName = modules.length === 1 ? reportNameOf(modules[0].name) : 'all',
  } = {},
) {
  return {
    mutate,
    // Not copied into the sandbox: builds and run-time output (a jest run elsewhere rebuilds dist/ under it).
    ignorePatterns: ['/dist', '/data', '/coverage', '/test-artifacts', '/.tls', '/reports'],
    // Stryker's jest runner, each mutant running only the test files of the tests that covered it (jest-covering-files.mjs).
    testRunner: 'jest-covering-files',
    appendPlugins: [
      './mutation/jest-covering-files.mjs',
      './mutation/survivors-as-found.mjs',
      './mutation/equivalent-ignorer.mjs',
    ],
    // The reviewed equivalent mutants of mutation/equivalent.json are left out, as a
    // `// Stryker disable next-line` comment on their lines would leave them out.
    ignorers: ['equivalent-mutants'],
    jest: {
      configFile: 'jest.config.js',
      config: {
        testMatch: [...new Set(modules.flatMap((m) => m.tests))].map((path) => `<rootDir>/${path}`),
        // A mutant stops at its first failing test (bail-environment.cjs), and the fastest files run first.
        testEnvironment: fileURLToPath(new URL('./bail-environment.cjs', import.meta.url)),
        testSequencer: fileURLToPath(new URL('./fastest-first-sequencer.cjs', import.meta.url)),
        // The dashboard's bundle is built once, by buildCommand, not before every mutant's run.
        globalSetup: undefined,
      },
      // The measuring run runs the module's tests; then each mutant runs only the tests that ran
      // its code there (coverageAnalysis perTest).
      enableFindRelatedTests: false,
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
    incrementalFile: `reports/mutation/${reportName}/incremental.json`,
    // A mutant that makes a test hang is killed (as a timeout) after 1.5 times its tests' time plus this.
    timeoutMS: 3_000,
    reporters: ['clear-text', 'progress', 'html', 'json', 'survivors-as-found'],
    htmlReporter: { fileName: `reports/mutation/${reportName}/index.html` },
    jsonReporter: { fileName: `reports/mutation/${reportName}/mutation.json` },
    clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: false },
    thresholds: { high: 90, low: 80, break: null },
    tempDirName: '.stryker-tmp',
    cleanTempDir: 'always',
  };
}

/** `npx stryker run mutation/stryker.config.mjs`: every module in one run, against all their tests. */
export default configFor(MUTATION_MODULES);
