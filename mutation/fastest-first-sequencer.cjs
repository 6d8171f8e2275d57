// The order of a mutation run's test files: jest's own order runs the files that failed last
// time first (under a mutant: the files that killed the mutant before, likely to kill this one
// too), then the slowest. Here the fastest come next instead: a mutant stops at its first failing
// test (bail-environment.cjs), so a unit test that kills it spares the API suites their tests.
const Sequencer = require('@jest/test-sequencer').default;

class FastestFirst extends Sequencer {
  sort(tests) {
    const sizes = new Map();
    const sizeOf = (test) => {
      if (!sizes.has(test.path)) sizes.set(test.path, test.context.hasteFS.getSize(test.path) ?? 0);
      return sizes.get(test.path);
    };
    for (const test of tests) test.duration = this.time(test);
    return [...tests].sort((a, b) => {
      const failedA = this.hasFailed(a);
      if (failedA !== this.hasFailed(b)) return failedA ? -1 : 1;
      // Files not timed yet go last, smallest first.
      if ((a.duration == null) !== (b.duration == null)) return a.duration == null ? 1 : -1;
      if (a.duration != null) return a.duration - b.duration;
      return sizeOf(a) - sizeOf(b);
    });
  }
}

module.exports = FastestFirst;
