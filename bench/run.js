// npm run bench [-- --quick] [-- --accounts N] [-- --store redis] [-- --only static,features,readings,webhooks,scale,start,readiness,sessions,hostile,account-writes,demo,heap,redis] [-- --redis]: builds, then runs each
// bench module and prints its figures; ratios against a baseline measured in the same run.
// Figures are printed, not asserted. A module exports `async run({ sandbox, bare, args })`
// returning rows made by compareWithBare (or nothing, if it prints its own figures) and
// optionally `title`. Add a module with one line below.
import { parseArgs } from 'node:util';

import { startBare, LOAD, printTable } from './lib/measure.js';
import { startSandbox } from './lib/sandbox.js';

const MODULES = {
  static: './static.js',
  features: './features.js',
  readings: './readings.js',
  webhooks: './webhooks.js',
  scale: './scale.js',
  start: './start.js',
  readiness: './readiness.js',
  sessions: './sessions.js',
  // One account's abuses of a hosted sandbox (a child process) while a careful partner integrates: 60 s (--seconds, --abuses a,b).
  hostile: './hostile.js',
  // One change of an account full to ACCOUNT_STORAGE_LIMIT, refused and accepted, against the whole-document way.
  'account-writes': './account-writes.js',
  // The presenter view: its first paint in Chromium, and an audience of 50 on one link (about a minute).
  demo: './demo.js',
  // Not run by default (a look at one cause, not a target: about 90 s): --only heap.
  heap: './heap.js',
  // Not run by default (it starts redis-server and several sandbox processes): --redis, or --only redis.
  redis: './redis.js',
};
const DEFAULT_MODULES = [
  'static',
  'features',
  'readings',
  'webhooks',
  'scale',
  'start',
  'readiness',
  'sessions',
  'hostile',
  'account-writes',
  'demo',
];

const { values: args } = parseArgs({
  options: {
    accounts: { type: 'string' },
    store: { type: 'string' },
    only: { type: 'string' },
    redis: { type: 'boolean' },
    quick: { type: 'boolean' },
    seconds: { type: 'string' },
    abuses: { type: 'string' },
    without: { type: 'string' },
    'max-sessions': { type: 'string' },
  },
  allowPositionals: false,
});
const chosen = args.only ? args.only.split(',') : args.redis ? [] : [...DEFAULT_MODULES];
if (args.redis && !chosen.includes('redis')) chosen.push('redis');
for (const name of chosen)
  if (!MODULES[name]) throw new Error(`--only: no bench module ${name}; there are ${Object.keys(MODULES).join(', ')}`);

const sandbox = await startSandbox();
const bare = await startBare();
console.log(
  `water-sandbox bench: ${LOAD.connections} connections; per case 1 s warm-up each, then ${LOAD.duration} alternating 1 s rounds of the route and its bare twin (BENCH_SECONDS to change); ratio: the median over neighbouring round pairs, with their range; Node ${process.version}`,
);
const rows = [];
try {
  for (const name of chosen) {
    const module = await import(MODULES[name]);
    console.log(`\n# ${module.title ?? name}`);
    rows.push(...((await module.run({ sandbox, bare, args })) ?? []));
  }
  if (rows.length > 0) {
    console.log('');
    printTable(rows);
  }
} finally {
  await sandbox.close();
  await bare.close();
}
