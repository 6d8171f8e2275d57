import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import * as esbuild from 'esbuild';

import { ALLOWED_LICENCES, licenceVerdict } from '../../src/tools/licences.js';
import {
  licenceProblems,
  NOTICES_FILE,
  packageFolderOf,
  shippedPackages,
  writeThirdPartyNotices,
} from '../../src/tools/third-party-notices.js';

describe('the allowed licences', () => {
  it('each says why it is allowed', () => {
    expect(Object.keys(ALLOWED_LICENCES).length).toBeGreaterThan(0);
    for (const [id, reason] of Object.entries(ALLOWED_LICENCES)) expect([id, reason.length > 20]).toEqual([id, true]);
  });

  it.each([
    ['MIT', true],
    ['Apache-2.0', true],
    ['(MIT OR GPL-3.0-only)', true],
    ['(BSD-3-Clause AND MIT)', true],
    ['MIT AND (ISC OR GPL-2.0-only)', true],
  ])('allows %s', (expression, allowed) => {
    expect(licenceVerdict(expression).allowed).toBe(allowed);
  });

  it.each([
    ['GPL-3.0-only', 'GPL-3.0-only is not on the allowed list'],
    ['MIT AND GPL-3.0-only', 'GPL-3.0-only is not on the allowed list'],
    [
      '(GPL-2.0-only OR LGPL-3.0-only)',
      'GPL-2.0-only is not on the allowed list; and LGPL-3.0-only is not on the allowed list',
    ],
    ['Apache-2.0 WITH LLVM-exception', 'Apache-2.0 WITH LLVM-exception is not on the allowed list'],
    ['GPL-2.0+', 'GPL-2.0+ is not on the allowed list'],
    ['mit', 'mit is not on the allowed list'],
    ['UNLICENSED', 'UNLICENSED is not on the allowed list'],
    [
      'SEE LICENSE IN LICENSE.md',
      '"SEE LICENSE IN LICENSE.md" is not an SPDX licence expression: "LICENSE IN LICENSE.md" follows a whole expression',
    ],
    ['(MIT OR ISC', '"(MIT OR ISC" is not an SPDX licence expression: a parenthesis is not closed'],
    ['MIT OR', '"MIT OR" is not an SPDX licence expression: it ends where a licence was expected'],
    ['', '"" is not an SPDX licence expression: it is empty'],
  ])('refuses %j: %s', (expression, reason) => {
    expect(licenceVerdict(expression)).toEqual({ allowed: false, reason });
  });
});

describe('the third-party notices', () => {
  let root: string;
  const modules = (): string => join(root, 'node_modules');

  /** A package in the temporary node_modules: its package.json, an index.js, and the files given. */
  async function givenPackage(
    folder: string,
    pkg: Record<string, unknown>,
    files: Record<string, string> = { LICENSE: `${String(pkg['name'])} licence text\n` },
  ): Promise<void> {
    const dir = join(modules(), folder);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'package.json'), JSON.stringify({ main: 'index.js', ...pkg }));
    await writeFile(join(dir, 'index.js'), `module.exports = ${JSON.stringify(String(pkg['name']))};\n`);
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  }

  /** Bundles an entry importing `names` with esbuild, as the build does, and answers the metafile's inputs. */
  async function bundleInputs(names: string[]): Promise<string[]> {
    const entry = join(root, 'entry.js');
    await writeFile(
      entry,
      names.map((n, i) => `import p${i} from ${JSON.stringify(n)}; console.log(p${i});`).join('\n'),
    );
    const { metafile } = await esbuild.build({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      format: 'esm',
      write: false,
      metafile: true,
      absWorkingDir: root,
      logLevel: 'silent',
    });
    return Object.keys(metafile.inputs);
  }

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'water-sandbox-notices-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('finds the package of each input: the innermost node_modules folder, scoped or not', () => {
    expect(packageFolderOf('/a/node_modules/express/lib/router.js')).toBe('/a/node_modules/express');
    expect(packageFolderOf('/a/node_modules/@redis/client/dist/lib/x.js')).toBe('/a/node_modules/@redis/client');
    expect(packageFolderOf('/a/node_modules/express/node_modules/cookie/index.js')).toBe(
      '/a/node_modules/express/node_modules/cookie',
    );
    expect(packageFolderOf('/a/src/main.ts')).toBeNull();
    expect(packageFolderOf('(disabled):/a/node_modules/x/fs.js')).toBeNull();
  });

  it('lists every package esbuild bundled, once per version, with its licence, its texts and its NOTICE, and only those', async () => {
    await givenPackage('alpha', { name: 'alpha', version: '1.0.0', license: 'MIT' });
    await givenPackage(
      '@scope/beta',
      { name: '@scope/beta', version: '2.1.0', license: 'Apache-2.0' },
      {
        'LICENSE.txt': 'beta licence\n',
        NOTICE: 'Beta\nCopyright 2020 Beta Inc.\n',
      },
    );
    await givenPackage('gamma', { name: 'gamma', version: '3.0.0', licenses: [{ type: 'BSD-3-Clause' }] });
    await givenPackage('unused', { name: 'unused', version: '9.9.9', license: 'GPL-3.0-only' });
    const inputs = await bundleInputs(['alpha', '@scope/beta', 'gamma']);

    const file = join(root, 'dist', NOTICES_FILE);
    const packages = await writeThirdPartyNotices(
      file,
      [{ shippedAs: 'bundle.js', inputs, workingDir: root }],
      'a test bundle',
    );
    expect(packages.map((p) => [p.name, p.version, p.licence])).toEqual([
      ['@scope/beta', '2.1.0', 'Apache-2.0'],
      ['alpha', '1.0.0', 'MIT'],
      ['gamma', '3.0.0', 'BSD-3-Clause'],
    ]);
    const text = await readFile(file, 'utf8');
    expect(text).toMatch(/^Third-party software in water-sandbox \d+\.\d+\.\d+\n\nIn a test bundle\.\n/);
    expect(text).toMatch(/^@scope\/beta\s+2\.1\.0\s+Apache-2\.0\s+bundle\.js$/m);
    expect(text).toContain('--- LICENSE.txt\n\nbeta licence\n');
    expect(text).toContain('--- NOTICE\n\nBeta\nCopyright 2020 Beta Inc.\n');
    expect(text).toContain('alpha licence text');
    expect(text).not.toContain('unused');
  });

  it('refuses to write the notices, naming every package, when a licence is not allowed or missing, or a package ships no licence text that is written down', async () => {
    await givenPackage('copyleft', { name: 'copyleft', version: '1.0.0', license: 'GPL-3.0-only' });
    await givenPackage('silent', { name: 'silent', version: '1.0.0' });
    await givenPackage('textless', { name: 'textless', version: '1.0.0', license: 'MIT' }, {});
    await givenPackage('fine', { name: 'fine', version: '1.0.0', license: 'MIT' });
    const inputs = await bundleInputs(['copyleft', 'silent', 'textless', 'fine']);
    const file = join(root, 'dist', NOTICES_FILE);

    await expect(
      writeThirdPartyNotices(file, [{ shippedAs: 'bundle.js', inputs, workingDir: root }], 'a test bundle'),
    ).rejects.toThrow(
      /cannot ship 3 packages under Apache-2\.0 as they are:\n {2}- copyleft@1\.0\.0 \(\S+\): GPL-3\.0-only is not on the allowed list \(src\/tools\/licences\.ts\)\n {2}- silent@1\.0\.0 \(\S+\) declares no licence in its package\.json\n {2}- textless@1\.0\.0 \(\S+\) ships no licence text, and none is written down for it/,
    );
    expect(existsSync(file)).toBe(false);
  });

  it("takes the text written down for a package whose tarball ships none (node-redis's packages), and only then", async () => {
    await givenPackage('redis', { name: 'redis', version: '6.0.0', license: 'MIT' }, {});
    await givenPackage(
      '@redis/client',
      { name: '@redis/client', version: '6.0.0', license: 'MIT' },
      { LICENSE: 'its own\n' },
    );
    const packages = shippedPackages([
      { shippedAs: 'bundle.js', inputs: await bundleInputs(['redis', '@redis/client']), workingDir: root },
    ]);
    expect(licenceProblems(packages)).toEqual([]);
    const [client, redis] = packages;
    expect(client!.texts).toEqual([{ kind: 'licence', title: 'LICENSE', text: 'its own\n' }]);
    expect(redis!.texts).toEqual([
      {
        kind: 'licence',
        title: expect.stringContaining('the package ships none; from LICENSE of the repository redis/node-redis'),
        text: expect.stringMatching(/^MIT License\n\nCopyright \(c\) 2022-2025, Redis, inc\.\n/),
      },
    ]);
  });

  it("adds the notices of a file shipped as it is (a copied bundle's *.LICENSE.txt) to its package's", async () => {
    await givenPackage(
      'ui',
      { name: 'ui', version: '5.0.0', license: 'Apache-2.0' },
      {
        LICENSE: 'ui licence\n',
        'ui-bundle.js': '/*! For license information please see ui-bundle.js.LICENSE.txt */\n',
        'ui-bundle.js.LICENSE.txt': '/*! react, MIT */\n',
      },
    );
    const [ui] = shippedPackages([
      {
        shippedAs: 'assets/',
        inputs: [join(modules(), 'ui', 'ui-bundle.js')],
        extraNotices: [join(modules(), 'ui', 'ui-bundle.js.LICENSE.txt')],
      },
    ]);
    expect(ui!.texts).toEqual([
      { kind: 'licence', title: 'LICENSE', text: 'ui licence\n' },
      {
        kind: 'notice',
        title: 'ui-bundle.js.LICENSE.txt (the notices of the packages inside ui-bundle.js)',
        text: '/*! react, MIT */\n',
      },
    ]);
  });
});
