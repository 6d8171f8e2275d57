// Module hooks that let a plain Node 20 process run the project's TypeScript sources, for
// tests that need a real child process (test/store/crash.test.ts): Node 20 cannot strip types
// itself, and there is no dist build in tests. Each .ts file is compiled on load with
// @swc/core (already a dev dependency, as jest's transform), and the NodeNext-style ".js"
// specifiers of a .ts file resolve to the .ts file next to it.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

import swc from '@swc/core';

export async function resolve(specifier, context, nextResolve) {
  const parent = context.parentURL;
  if (
    parent?.endsWith('.ts') &&
    (specifier.startsWith('./') || specifier.startsWith('../')) &&
    specifier.endsWith('.js')
  ) {
    const ts = new URL(`${specifier.slice(0, -'.js'.length)}.ts`, parent);
    if (existsSync(fileURLToPath(ts))) return { url: ts.href, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context);
  const filename = fileURLToPath(url);
  const { code } = await swc.transform(await readFile(filename, 'utf8'), {
    filename,
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'es6' },
    sourceMaps: 'inline',
  });
  return { format: 'module', source: code, shortCircuit: true };
}
