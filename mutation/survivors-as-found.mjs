// A Stryker reporter, `survivors-as-found`: prints each mutant no test noticed the moment its run
// ends, so the blind spots of a long run can be worked on before the run is over.
import { relative } from 'node:path';

import { declareClassPlugin, PluginKind } from '@stryker-mutator/api/plugin';

class SurvivorsAsFound {
  onMutantTested(result) {
    if (result.status !== 'Survived' && result.status !== 'NoCoverage') return;
    const where = `${relative(process.cwd(), result.fileName)}:${result.location.start.line}`;
    const replacement = result.replacement?.split('\n')[0].slice(0, 100) ?? '';
    console.log(`not killed: ${where} ${result.mutatorName}${result.status === 'NoCoverage' ? ' (no test ran it)' : ''}: ${replacement}`);
  }
}

export const strykerPlugins = [declareClassPlugin(PluginKind.Reporter, 'survivors-as-found', SurvivorsAsFound)];
