// A Stryker ignorer, `equivalent-mutants`: applies mutation/equivalent.json to the files it
// instruments. On entering a file it hangs each entry's `// Stryker disable next-line` directive
// on the first node of the entry's line (of each of its lines), as the comment would sit, so Stryker
// leaves out exactly the mutants the comment would (those mutators, that line); it ignores no
// node itself.
import { relative } from 'node:path';

import { declareValuePlugin, PluginKind } from '@stryker-mutator/api/plugin';

import { directiveOf, loadEquivalents, locate } from './equivalent-mutants.mjs';

const entries = loadEquivalents();

/** The first node the traversal meets on `line` (its directives are read before any node after it). */
function firstNodeOn(program, line) {
  let found = null;
  program.traverse({
    enter(path) {
      if (path.node.loc?.start.line !== line) return;
      found = path.node;
      path.stop();
    },
  });
  return found;
}

function hangDirectives(program) {
  const fileName = program.hub?.file?.opts?.filename;
  const code = program.hub?.getCode?.();
  if (typeof fileName !== 'string' || typeof code !== 'string') return;
  const file = relative(process.cwd(), fileName).split('\\').join('/');
  for (const entry of entries.filter((e) => e.file === file)) {
    const { line, lastLine, problem } = locate(entry, code);
    if (problem) throw new Error(`mutation/equivalent.json: ${problem}`);
    for (let l = line; l <= lastLine; l++) {
      const node = firstNodeOn(program, l);
      // A directive on a node of its own line, as a comment above the line would be.
      if (node) (node.leadingComments ??= []).push({ type: 'CommentLine', value: directiveOf(entry), loc: node.loc });
    }
  }
}

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'equivalent-mutants', {
    shouldIgnore(path) {
      if (path.isProgram()) hangDirectives(path);
      return undefined;
    },
  }),
];
