// A Stryker reporter, `survivors-as-found`: prints each mutant no test noticed the moment its run
// ends, so the blind spots of a long run can be worked on before the run is over.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

import { declareClassPlugin, PluginKind } from '@stryker-mutator/api/plugin';

const short = (text) => JSON.stringify(text.split('\n')[0].slice(0, 80));

/** A mutant as `file:line:column mutator: original -> replacement` (a line can hold several mutants). */
export function describeMutant(result) {
  const { start, end } = result.location;
  const line = readFileSync(result.fileName, 'utf8').split('\n')[start.line - 1] ?? '';
  const original = line.slice(start.column - 1, start.line === end.line ? end.column - 1 : undefined);
  const where = `${relative(process.cwd(), result.fileName)}:${start.line}:${start.column}`;
  return `${where} ${result.mutatorName}${result.status === 'NoCoverage' ? ' (no test ran it)' : ''}: ${short(original)} -> ${short(result.replacement ?? '')}`;
}

class SurvivorsAsFound {
  onMutantTested(result) {
    if (result.status === 'Survived' || result.status === 'NoCoverage')
      console.log(`not killed: ${describeMutant(result)}`);
  }
}

export const strykerPlugins = [declareClassPlugin(PluginKind.Reporter, 'survivors-as-found', SurvivorsAsFound)];
