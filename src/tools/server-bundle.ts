import * as esbuild from 'esbuild';

export type ServerBundle = { ascii: true; text: string } | { ascii: false; text: string; reason: string };

/** `entry` (dist/main.js; the tests give src/main.ts) and every module it imports, dependencies included, as the text of one ES module. */
export async function bundleServer(entry: string): Promise<ServerBundle> {
  const { outputFiles } = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    // The CommonJS dependencies (express and its kin) call require(); an ES module has none of its own.
    banner: { js: "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);" },
    logLevel: 'warning',
    legalComments: 'none',
    write: false,
  });
  const [bundle] = outputFiles;
  if (!bundle) throw new Error(`esbuild made no bundle of ${entry}`);
  return asciiOnlySource(bundle.text);
}

const NOT_ASCII = /[^\x00-\x7f]/gu;

/**
 * `text` with every character of its comments outside ASCII written as `\u{...}` text.
 * esbuild escapes such characters in code (its default charset) but keeps the comments of the
 * dependencies as they are, and one em dash in a comment makes V8 hold the whole source, which
 * it keeps for lazy compilation, at two bytes a character: 6 MB of heap for nothing.
 *
 * The rewrite is kept only when both texts are the same code once the comments are gone, so a
 * character in a string or a template (esbuild leaves tagged templates alone) is never changed;
 * otherwise the text is returned as it was, with the reason.
 */
export async function asciiOnlySource(text: string): Promise<ServerBundle> {
  const rewritten = text.replace(NOT_ASCII, (char) => `\\u{${char.codePointAt(0)?.toString(16)}}`);
  if (rewritten === text) return { ascii: true, text };
  const code = async (source: string): Promise<string> => (await esbuild.transform(source, { format: 'esm', minifyWhitespace: true, legalComments: 'none' })).code;
  const [before, after] = await Promise.all([code(text), code(rewritten)]);
  if (before === after) return { ascii: true, text: rewritten };
  let at = 0;
  while (before[at] === after[at]) at++;
  return { ascii: false, text, reason: `a character outside ASCII is in code, not in a comment: ${JSON.stringify(before.slice(Math.max(0, at - 60), at + 20))}` };
}
