// The test environment of mutation runs: jest's node environment, except that once a test has
// failed under a mutant, the mutant's other tests are skipped, in this file and the next ones:
// the mutant is killed, and jest has no such bail of its own (Stryker turns jest's `bail` off).
// The measuring run, with no mutant active, runs every test.
const { TestEnvironment } = require('jest-environment-node');

const ACTIVE_MUTANT = '__STRYKER_ACTIVE_MUTANT__';
let killedMutant;

class BailingEnvironment extends TestEnvironment {
  handleTestEvent(event) {
    const mutant = process.env[ACTIVE_MUTANT];
    if (mutant === undefined) return;
    if (event.name === 'test_done' && event.test.errors.length > 0) killedMutant = mutant;
    else if (event.name === 'test_start' && killedMutant === mutant) event.test.mode = 'skip';
  }
}

module.exports = BailingEnvironment;
