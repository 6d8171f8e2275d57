// A Stryker test runner, `jest-covering-files`: Stryker's jest runner, except that a mutant runs
// only the test files holding the tests that covered it in the measuring run. Stryker's own
// runner filters the tests by name but loads every test file related to the mutated file, and
// here nearly every API test file imports the webhook sender (through the test app): loading a
// test file builds the app, which costs more than the tests the name filter keeps.
import { strykerPlugins as jestPlugins } from '@stryker-mutator/jest-runner';
import { commonTokens, declareFactoryPlugin, PluginKind, tokens } from '@stryker-mutator/api/plugin';

const jestFactory = jestPlugins.find(
  (plugin) => plugin.kind === PluginKind.TestRunner && plugin.name === 'jest',
).factory;

/** A path as a pattern that matches it alone (jest reads the paths it is given as regular expressions). */
const exactly = (path) => `^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;

function coveringFilesRunner(injector) {
  const runner = jestFactory(injector);
  const fileOfTest = new Map();
  let onlyFiles;
  // The adapter runs jest; told of test files, it runs those instead of the related ones.
  const adapter = runner.jestTestAdapter;
  const runJest = adapter.run.bind(adapter);
  adapter.run = (settings) => runJest(onlyFiles ? { ...settings, testFiles: onlyFiles } : settings);
  return {
    init: () => runner.init(),
    capabilities: () => runner.capabilities(),
    async dryRun(options) {
      const result = await runner.dryRun(options);
      if (result.status === 'complete')
        for (const test of result.tests) if (test.fileName) fileOfTest.set(test.id, test.fileName);
      return result;
    },
    async mutantRun(options) {
      const files = options.testFilter?.map((id) => fileOfTest.get(id));
      onlyFiles = files && files.every(Boolean) ? [...new Set(files)].map(exactly) : undefined;
      try {
        return await runner.mutantRun(options);
      } finally {
        onlyFiles = undefined;
      }
    },
  };
}
coveringFilesRunner.inject = tokens(commonTokens.injector);

export const strykerPlugins = [declareFactoryPlugin(PluginKind.TestRunner, 'jest-covering-files', coveringFilesRunner)];
