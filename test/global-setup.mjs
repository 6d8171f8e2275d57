// Once before the test files: the dashboard's browser bundle, which the server reads from
// dist/dashboard-assets; skipped when it is up to date (a second `npm test`, or after
// `npm run build`), so `npm test` works on a fresh clone with nothing built.
//
// Jest runs a global set-up outside its module system (CommonJS, no path mapping), so this is
// plain JavaScript: it compiles src/dashboard/build-assets.ts with esbuild into
// node_modules/.cache (where its own imports resolve) and runs it.
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import * as esbuild from 'esbuild';

export default async function globalSetup() {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const cache = join(root, 'node_modules', '.cache', 'water-sandbox');
  await mkdir(cache, { recursive: true });
  const builder = join(cache, `build-assets-${process.pid}.mjs`);
  await esbuild.build({
    entryPoints: [join(root, 'src/dashboard/build-assets.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile: builder,
    logLevel: 'silent',
  });
  try {
    const { buildDashboardAssets } = await import(pathToFileURL(builder).href);
    await buildDashboardAssets({ root });
  } finally {
    await rm(builder, { force: true });
  }
}
