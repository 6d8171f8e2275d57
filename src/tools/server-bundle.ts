import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';

import * as esbuild from 'esbuild';

import { present } from '../core/errors.js';
import { LUA_DIR } from '../store/redis/lua-files.js';

export type ServerBundle = { ascii: true; text: string } | { ascii: false; text: string; reason: string };

/**
 * The Redis store's Lua scripts inside the bundle: store/redis/lua-files (which reads them from
 * src/) is replaced by a module holding the text of every .lua file, since the bundle runs where
 * there is no src/ (the npm package, the image).
 */
const inlineLuaFiles: esbuild.Plugin = {
  name: 'inline-lua-files',
  setup(build) {
    build.onLoad({ filter: /[\\/]store[\\/]redis[\\/]lua-files\.[jt]s$/ }, async () => {
      const names = (await readdir(LUA_DIR)).filter((name) => name.endsWith('.lua')).sort();
      const texts = await Promise.all(names.map((name) => readFile(join(LUA_DIR, name), 'utf8')));
      const files = Object.fromEntries(names.map((name, i) => [basename(name, '.lua'), texts[i]]));
      return {
        loader: 'js',
        contents: `const FILES = ${JSON.stringify(files)};\nexport function readLuaFile(name) {\n  const text = FILES[name];\n  if (text === undefined) throw new Error('no Lua script ' + name + '.lua in the bundle');\n  return text;\n}\n`,
        watchFiles: names.map((name) => join(LUA_DIR, name)),
      };
    });
  },
};

/**
 * `entry` (dist/main.js; the tests give src/main.ts) and every module it imports, dependencies
 * included, as the text of one ES module; with the files it was made from (esbuild's metafile,
 * relative to the working folder), for its third-party notices.
 */
export async function bundleServer(entry: string): Promise<ServerBundle & { inputs: string[] }> {
  const { outputFiles, metafile } = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    // The CommonJS dependencies (express and its kin) call require(); an ES module has none of its own.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);",
    },
    logLevel: 'warning',
    legalComments: 'none',
    write: false,
    metafile: true,
    plugins: [inlineLuaFiles],
  });
  const [bundle] = outputFiles;
  if (!bundle) throw new Error(`esbuild made no bundle of ${entry}`);
  return { ...(await asciiOnlySource(bundle.text)), inputs: Object.keys(metafile.inputs) };
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
  const rewritten = text.replace(
    NOT_ASCII,
    (char) => `\\u{${present(char.codePointAt(0), 'a code point').toString(16)}}`,
  );
  if (rewritten === text) return { ascii: true, text };
  const code = async (source: string): Promise<string> =>
    (await esbuild.transform(source, { format: 'esm', minifyWhitespace: true, legalComments: 'none' })).code;
  const [before, after] = await Promise.all([code(text), code(rewritten)]);
  if (before === after) return { ascii: true, text: rewritten };
  let at = 0;
  while (before[at] === after[at]) at++;
  return {
    ascii: false,
    text,
    reason: `a character outside ASCII is in code, not in a comment: ${JSON.stringify(before.slice(Math.max(0, at - 60), at + 20))}`,
  };
}
