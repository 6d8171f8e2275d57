// npm run bench: builds, then runs each bench module against one in-process sandbox and one
// bare Express app, and prints one table. Figures are printed, not asserted.
// A module exports `async run({ sandbox, bare })` returning rows made by compareWithBare (or
// nothing, if it prints its own figures) and optionally `title`. Add a module with one line below.
import { startBare, LOAD, printTable } from './lib/measure.js';
import { startSandbox } from './lib/sandbox.js';

const MODULES = [
  './readings.js',
  './webhooks.js',
];

const sandbox = await startSandbox();
const bare = await startBare();
console.log(`water-sandbox bench: ${LOAD.connections} connections; per case 1 s warm-up each, then ${LOAD.duration} alternating 1 s rounds of the route and its bare twin (BENCH_SECONDS to change); Node ${process.version}`);
const rows = [];
try {
  for (const path of MODULES) {
    const module = await import(path);
    console.log(`\n# ${module.title ?? path}`);
    // A module may also print its own figures and return nothing.
    rows.push(...((await module.run({ sandbox, bare })) ?? []));
  }
  if (rows.length > 0) {
    console.log('');
    printTable(rows);
  }
} finally {
  await sandbox.close();
  await bare.close();
}
