// Once before the test files: the dashboard's browser bundle, which the server reads from
// dist/dashboard-assets, and the API reference's files (dist/docs-assets); each skipped when
// up to date (a second `npm test`, or after `npm run build`), so `npm test` works on a fresh
// clone with nothing built.
//
// Jest runs a global set-up outside its module system (CommonJS, no path mapping), so this is
// plain JavaScript: it compiles src/dashboard/build-assets.ts and src/openapi/docs-assets.ts with
// esbuild into node_modules/.cache (where their own imports resolve) and runs them.
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import * as esbuild from 'esbuild';

export default async function globalSetup() {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const cache = join(root, 'node_modules', '.cache', 'water-sandbox');
  await mkdir(cache, { recursive: true });
  const builders = join(cache, `builders-${process.pid}`);
  await esbuild.build({
    entryPoints: {
      'build-assets': join(root, 'src/dashboard/build-assets.ts'),
      'docs-assets': join(root, 'src/openapi/docs-assets.ts'),
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outdir: builders,
    outExtension: { '.js': '.mjs' },
    logLevel: 'silent',
  });
  try {
    const { buildDashboardAssets } = await import(pathToFileURL(join(builders, 'build-assets.mjs')).href);
    const { copyDocsAssets } = await import(pathToFileURL(join(builders, 'docs-assets.mjs')).href);
    await buildDashboardAssets({ root });
    await copyDocsAssets(join(root, 'dist', 'docs-assets'));
  } finally {
    await rm(builders, { recursive: true, force: true });
  }
}
