// The reviewed list of equivalent mutants (mutation/equivalent.json): code where a mutant cannot
// change what a client sees, so no test can kill it. The mutation run leaves those mutants out
// (mutation/equivalent-ignorer.mjs), as a `// Stryker disable next-line` comment would, without
// the comment in src/. Each entry names its file, its code (a snippet found exactly once in the
// file; with `through`, the lines from there to the next line holding that code), the mutators
// it covers and why the mutant is equivalent; test/mutation/ checks that every
// entry still finds its code, so an edit that moves or removes it fails `npm test`.
import { readFileSync } from 'node:fs';

export const EQUIVALENTS_FILE = new URL('./equivalent.json', import.meta.url);

/** Stryker's mutators (its instrumenter's names), and `all`. */
export const MUTATOR_NAMES = [
  'all',
  'ArithmeticOperator',
  'ArrayDeclaration',
  'ArrowFunction',
  'AssignmentOperator',
  'BlockStatement',
  'BooleanLiteral',
  'ConditionalExpression',
  'EqualityOperator',
  'LogicalOperator',
  'MethodExpression',
  'ObjectLiteral',
  'OptionalChaining',
  'Regex',
  'StringLiteral',
  'UnaryOperator',
  'UpdateOperator',
];

/** The entries of mutation/equivalent.json. */
export function loadEquivalents(file = EQUIVALENTS_FILE) {
  return JSON.parse(readFileSync(file, 'utf8')).entries;
}

/** How an entry is named in messages: its file and code. */
export const nameOf = (entry) =>
  `${entry.file}: ${JSON.stringify(entry.code)}${entry.through === undefined ? '' : ` through ${JSON.stringify(entry.through)}`}`;

const lineAt = (source, index) => source.slice(0, index).split('\n').length;

/**
 * The lines (1-based, first and last) an entry covers in `source`: the line of its code, or with
 * `through`, every line from there to the first line after it holding that code; or why the
 * entry cannot be placed.
 */
export function locate(entry, source) {
  for (const [field, code] of [
    ['code', entry.code],
    ['through', entry.through],
  ]) {
    if (code === undefined && field === 'through') continue;
    if (typeof code !== 'string' || code.trim() === '' || code.includes('\n'))
      return { problem: `${nameOf(entry)}: its ${field} must be one non-empty line of code` };
  }
  const at = source.indexOf(entry.code);
  if (at === -1)
    return {
      problem: `${nameOf(entry)}: the code is no longer in ${entry.file}; fix or remove the entry in mutation/equivalent.json`,
    };
  if (source.indexOf(entry.code, at + 1) !== -1)
    return { problem: `${nameOf(entry)}: the code is in ${entry.file} more than once; quote more of the line` };
  const line = lineAt(source, at);
  if (entry.through === undefined) return { line, lastLine: line };
  const end = source.indexOf(entry.through, at + entry.code.length);
  if (end === -1)
    return {
      problem: `${nameOf(entry)}: the code of \`through\` no longer follows the code in ${entry.file}; fix or remove the entry in mutation/equivalent.json`,
    };
  const lastLine = lineAt(source, end);
  if (lastLine - line > 20)
    return { problem: `${nameOf(entry)}: covers ${lastLine - line + 1} lines; an entry covers at most 21` };
  return { line, lastLine };
}

/** Every problem of the list: an entry whose code is gone or ambiguous, an unknown mutator, no reason. */
export function problemsOf(entries, readSource) {
  const problems = [];
  for (const entry of entries) {
    let source;
    try {
      source = readSource(entry.file);
    } catch {
      problems.push(`${nameOf(entry)}: no file ${entry.file}`);
      continue;
    }
    const { problem } = locate(entry, source);
    if (problem) problems.push(problem);
    const mutators = Array.isArray(entry.mutators) ? entry.mutators : [];
    if (mutators.length === 0) problems.push(`${nameOf(entry)}: names no mutator`);
    for (const mutator of mutators)
      if (!MUTATOR_NAMES.includes(mutator))
        problems.push(`${nameOf(entry)}: ${mutator} is not one of Stryker's mutators (${MUTATOR_NAMES.join(', ')})`);
    if (typeof entry.why !== 'string' || entry.why.trim() === '')
      problems.push(`${nameOf(entry)}: says not why the mutant is equivalent`);
  }
  return problems;
}

/** The `// Stryker disable next-line` directive an entry stands for (its text after `//`). */
export const directiveOf = (entry) =>
  ` Stryker disable next-line ${entry.mutators.join(',')}: ${entry.why} (mutation/equivalent.json)`;
