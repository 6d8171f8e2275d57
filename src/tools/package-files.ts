import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';

import * as esbuild from 'esbuild';
import ts from 'typescript';

import { PACKAGE_ROOT } from '../core/package-info.js';
import { NOTICES_FILE, writeThirdPartyNotices } from './third-party-notices.js';

/**
 * The package's entry points for tests, `water-sandbox/client` and `water-sandbox/testcontainers`
 * (package.json `exports`), made by `npm run build:package` (and `npm pack`) into dist/package/:
 *
 * - client.js and testcontainers.js, bundled with what they share in one chunk, so an installed
 *   package has no dependency to fetch; `testcontainers` is left to the partner's project (an
 *   optional peer dependency); their third-party notices beside them (THIRD-PARTY-NOTICES.txt);
 * - types/client/*.d.ts and types/testcontainers/*.d.ts, the compiler's declarations of
 *   src/client and src/testcontainers, except src/client/types.ts, whose types (the zod schemas'
 *   output types) are written out in full, so the declarations need no zod and no server module.
 */
export const PACKAGE_ENTRIES = ['client', 'testcontainers'] as const;

/** Entry: src/<entry>/index.ts (esbuild reads TypeScript) or dist/<entry>/index.js after tsc. */
export async function bundlePackageEntries(entryOf: (entry: string) => string, outDir: string): Promise<void> {
  await rm(outDir, { recursive: true, force: true });
  const { metafile } = await esbuild.build({
    entryPoints: Object.fromEntries(PACKAGE_ENTRIES.map((entry) => [entry, entryOf(entry)])),
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    external: ['testcontainers'],
    chunkNames: 'shared-[hash]',
    outdir: outDir,
    logLevel: 'warning',
    legalComments: 'none',
    metafile: true,
  });
  await writeThirdPartyNotices(
    join(outDir, NOTICES_FILE),
    [{ shippedAs: 'client.js, testcontainers.js', inputs: Object.keys(metafile.inputs) }],
    "the entry points water-sandbox/client (client.js) and water-sandbox/testcontainers (testcontainers.js); testcontainers itself is your own project's (an optional peer dependency), not bundled",
  );
}

/** Deep-expands a type: aliases and interfaces give way to the shapes they stand for (`unknown` stays). */
const EXPAND =
  'type __Expand<T> = unknown extends T ? T : T extends infer O ? { [K in keyof O]: __Expand<O[K]> } : never;';

const TYPES_MODULE = 'src/client/types.ts';

/**
 * The declarations of src/client/types.ts with every exported type written out: each one is
 * expanded by the compiler through __Expand and printed, with its doc comment.
 */
function expandedTypes(program: ts.Program, host: ts.CompilerHost, options: ts.CompilerOptions): string {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(resolve(PACKAGE_ROOT, TYPES_MODULE));
  if (!source) throw new Error(`${TYPES_MODULE} is not in the program`);
  const typesModule = checker.getSymbolAtLocation(source);
  if (!typesModule) throw new Error(`${TYPES_MODULE} is not a module`);
  const exported = checker
    .getExportsOfModule(typesModule)
    .map((s) => ({ name: s.name, doc: ts.displayPartsToString(s.getDocumentationComment(checker)) }));

  // A second program with one more file, which asks for each exported type expanded.
  const probeName = resolve(PACKAGE_ROOT, 'src/client/__expanded.ts');
  const probeText = [
    `import type * as T from './types.js';`,
    EXPAND,
    ...exported.map(({ name }) => `export type ${name} = __Expand<T.${name}>;`),
  ].join('\n');
  const probeHost: ts.CompilerHost = {
    ...host,
    getSourceFile: (fileName, languageVersion, ...rest) =>
      resolve(fileName) === probeName
        ? ts.createSourceFile(fileName, probeText, languageVersion, true)
        : host.getSourceFile(fileName, languageVersion, ...rest),
    fileExists: (fileName) => resolve(fileName) === probeName || host.fileExists(fileName),
  };
  const probeProgram = ts.createProgram([probeName], options, probeHost, program);
  const probeChecker = probeProgram.getTypeChecker();
  const probe = probeProgram.getSourceFile(probeName);
  if (!probe) throw new Error(`${probeName} is not in the probe program`);
  const printer = ts.createPrinter({ removeComments: true });
  const flags: ts.NodeBuilderFlags =
    ts.NodeBuilderFlags.NoTruncation |
    ts.NodeBuilderFlags.InTypeAlias |
    ts.NodeBuilderFlags.MultilineObjectLiterals |
    ts.NodeBuilderFlags.IgnoreErrors;
  const lines = [
    '// Written by `npm run build:package` from src/client/types.ts: the types of the schemas with which',
    '// the sandbox validates and documents its API (/openapi.json), written out in full.',
    '',
  ];
  for (const statement of probe.statements) {
    if (!ts.isTypeAliasDeclaration(statement) || statement.name.text === '__Expand') continue;
    const type = probeChecker.getTypeAtLocation(statement.name);
    const node = probeChecker.typeToTypeNode(type, undefined, flags);
    if (!node) throw new Error(`cannot write out the type ${statement.name.text}`);
    const text = printer.printNode(ts.EmitHint.Unspecified, node, probe);
    if (/__Expand|import\(/.test(text))
      throw new Error(`the type ${statement.name.text} is not written out in full: ${text.slice(0, 300)}`);
    const doc = exported.find((e) => e.name === statement.name.text)?.doc ?? '';
    if (doc !== '') lines.push(`/** ${doc.replace(/\*\//g, '*\\/').replace(/\n/g, '\n * ')} */`);
    lines.push(`export type ${statement.name.text} = ${text};`, '');
  }
  return lines.join('\n');
}

/** Writes the declarations of the package's entry points into `outDir` (types/client, types/testcontainers). */
export async function writePackageTypes(outDir: string): Promise<string[]> {
  const configFile = ts.readConfigFile(join(PACKAGE_ROOT, 'tsconfig.json'), (path) => ts.sys.readFile(path));
  const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, PACKAGE_ROOT);
  const options: ts.CompilerOptions = {
    ...parsed.options,
    noEmit: false,
    declaration: true,
    emitDeclarationOnly: true,
    declarationMap: false,
    outDir,
    rootDir: join(PACKAGE_ROOT, 'src'),
    types: ['node'],
  };
  const host = ts.createCompilerHost(options);
  const roots = PACKAGE_ENTRIES.map((entry) => join(PACKAGE_ROOT, 'src', entry, 'index.ts'));
  const program = ts.createProgram(roots, options, host);
  const problems = ts.getPreEmitDiagnostics(program);
  if (problems.length > 0) throw new Error(ts.formatDiagnostics(problems, host));

  await rm(outDir, { recursive: true, force: true });
  const written: string[] = [];
  const files = new Map<string, string>();
  program.emit(undefined, (fileName, text) => files.set(resolve(fileName), text), undefined, true);
  files.set(resolve(outDir, 'client', 'types.d.ts'), expandedTypes(program, host, options));
  for (const [fileName, text] of files) {
    const inside = relative(outDir, fileName);
    // Only the entry points' own folders: the server modules their types came from stay out.
    if (!PACKAGE_ENTRIES.some((entry) => inside.startsWith(`${entry}/`))) continue;
    await mkdir(dirname(fileName), { recursive: true });
    await writeFile(fileName, text);
    written.push(inside);
  }
  return written.sort();
}
