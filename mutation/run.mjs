// npm run mutation [-- --only "journal,faults"] [-- --mutate src/webhooks/assess.ts:20-30] [-- --full]:
// StrykerJS on the modules of stryker.config.mjs (or some of them, or a file or line range), one
// run per module against that module's tests, then the score of each module, its surviving
// mutants, and whether the targets are met: at least 80 % of the mutants killed in every module,
// none surviving in the sender. A report, like the bench: CPU-heavy, not part of .ci/run.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { Stryker } from '@stryker-mutator/core';

import { loadEquivalents, nameOf, problemsOf } from './equivalent-mutants.mjs';
import { configFor, MUTATION_MODULES, reportNameOf } from './stryker.config.mjs';
import { describeMutant } from './survivors-as-found.mjs';

const TARGET_SCORE = 80;

const { values: args } = parseArgs({
  options: { only: { type: 'string' }, mutate: { type: 'string', multiple: true }, full: { type: 'boolean' } },
  allowPositionals: false,
});
const wanted = args.only?.split(',').map((name) => name.trim().toLowerCase());
const modules = wanted
  ? MUTATION_MODULES.filter((m) => wanted.some((w) => m.name.toLowerCase().includes(w)))
  : MUTATION_MODULES;
if (modules.length === 0)
  throw new Error(`--only: no module matches; there are ${MUTATION_MODULES.map((m) => m.name).join(', ')}`);
// `--mutate file[:lines]` runs the modules that own those files, on those files only.
const fileOfPattern = (pattern) => pattern.replace(/:[\d:-]+$/, '');
const runs = args.mutate
  ? MUTATION_MODULES.map((module) => ({
      module,
      mutate: args.mutate.filter((p) => module.files.includes(fileOfPattern(p))),
    })).filter((r) => r.mutate.length > 0)
  : modules.map((module) => ({ module, mutate: module.files }));
if (runs.length === 0)
  throw new Error(
    `--mutate: no module has ${args.mutate.join(', ')}; the modules' files are ${MUTATION_MODULES.flatMap((m) => m.files).join(', ')}`,
  );

// The list of equivalent mutants must place every entry before a run can use it.
const equivalents = loadEquivalents();
const listProblems = problemsOf(equivalents, (file) => readFileSync(file, 'utf8'));
if (listProblems.length > 0) throw new Error(`mutation/equivalent.json:\n  ${listProblems.join('\n  ')}`);

const started = performance.now();
// A partial run leaves the whole run's results alone (Stryker would keep only its own mutants' in the file).
const partial = args.mutate !== undefined;
const results = [];
const minutesOf = new Map();
for (const { module, mutate } of runs) {
  const config = configFor([module], { mutate });
  const moduleStarted = performance.now();
  results.push(
    ...(await new Stryker({
      ...config,
      incremental: config.incremental && !partial,
      force: args.full ?? false,
    }).runMutationTest()),
  );
  minutesOf.set(module.name, (performance.now() - moduleStarted) / 60_000);
}
const minutes = (performance.now() - started) / 60_000;

const fileOf = (result) => relative(process.cwd(), result.fileName);
const counted = (list) => {
  const count = (...statuses) => list.filter((r) => statuses.includes(r.status)).length;
  const detected = count('Killed', 'Timeout');
  const undetected = count('Survived', 'NoCoverage');
  return {
    detected,
    undetected,
    left: count('Ignored', 'CompileError', 'RuntimeError'),
    score: detected + undetected === 0 ? null : (100 * detected) / (detected + undetected),
  };
};

const rows = [];
const failures = [];
for (const module of MUTATION_MODULES) {
  const own = results.filter((r) => module.files.includes(fileOf(r)));
  if (own.length === 0) continue;
  const { detected, undetected, left, score } = counted(own);
  rows.push([
    module.name,
    String(detected + undetected),
    String(detected),
    String(undetected),
    String(left),
    score === null ? '-' : `${score.toFixed(1)} %`,
    `${minutesOf.get(module.name).toFixed(1)}`,
  ]);
  if (score !== null && score < TARGET_SCORE)
    failures.push(`${module.name}: ${score.toFixed(1)} % killed (target ${TARGET_SCORE} %)`);
  if (module.noSurvivors && undetected > 0)
    failures.push(`${module.name}: ${undetected} mutant(s) not killed (target: none)`);
}
const all = counted(results.filter((r) => MUTATION_MODULES.some((m) => m.files.includes(fileOf(r)))));
rows.push([
  'all listed modules',
  String(all.detected + all.undetected),
  String(all.detected),
  String(all.undetected),
  String(all.left),
  all.score === null ? '-' : `${all.score.toFixed(1)} %`,
  minutes.toFixed(1),
]);

const header = ['module', 'mutants', 'killed', 'survived', 'left out', 'score', 'minutes'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
console.log(
  `\nwater-sandbox mutation run: ${minutes.toFixed(1)} min, Node ${process.version}; killed = killed or timed out, survived = survived or no test ran it, left out = static, not compiling or not run`,
);
console.log(line(header));
for (const row of rows) console.log(line(row));

const survivors = results.filter((r) => r.status === 'Survived' || r.status === 'NoCoverage');
if (survivors.length > 0) {
  console.log('\nnot killed:');
  for (const r of survivors) console.log(`  ${describeMutant(r)}`);
}
// An entry that left out no mutant of a run that mutated its file names code no mutator changes any more.
const mutatedFiles = new Set(runs.flatMap(({ mutate }) => mutate.map(fileOfPattern)));
const idle = equivalents.filter(
  (e) =>
    mutatedFiles.has(e.file) &&
    !args.mutate &&
    !results.some((r) => r.status === 'Ignored' && fileOf(r) === e.file && r.statusReason?.startsWith(e.why)),
);
if (idle.length > 0)
  console.log(
    `\nmutation/equivalent.json: entries that left out no mutant (remove them, or name the mutators that apply):\n  ${idle.map(nameOf).join('\n  ')}`,
  );
console.log(
  failures.length === 0
    ? `\ntargets met: every module at least ${TARGET_SCORE} %, none surviving in the sender`
    : `\ntargets NOT met:\n  ${failures.join('\n  ')}`,
);
console.log(
  `reports: ${runs.map(({ module }) => `reports/mutation/${reportNameOf(module.name)}/index.html`).join(', ')}`,
);
process.exitCode = failures.length === 0 ? 0 : 1;
