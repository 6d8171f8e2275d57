import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

import { PACKAGE_ROOT } from '../core/package-info.js';
import { DOCS_ASSETS } from './docs-page.js';

/** Where /docs/assets/ is served from: Swagger UI's files, copied there by the build. */
export const DOCS_ASSETS_SUBDIR = 'dist/docs-assets';
export const DOCS_ASSETS_DIR = join(PACKAGE_ROOT, DOCS_ASSETS_SUBDIR);

/** The folder of the swagger-ui-dist package, whose files /docs serves. */
export const swaggerUiFolder = (): string =>
  dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/**
 * Copies the files of swagger-ui-dist that /docs serves into `outDir` (dist/docs-assets), at
 * build time, as the dashboard's bundle is made: the server runs from one bundled file, and the
 * image has no node_modules to find them in. A file already there with the same bytes is left
 * alone; a changed one is renamed into place, so a server starting meanwhile never reads half of it.
 */
export async function copyDocsAssets(outDir: string = DOCS_ASSETS_DIR): Promise<{ copied: number }> {
  const from = swaggerUiFolder();
  await mkdir(outDir, { recursive: true });
  let copied = 0;
  for (const name of DOCS_ASSETS) {
    const bytes = await readFile(join(from, name));
    const target = join(outDir, name);
    if ((await readFile(target).catch(() => null))?.equals(bytes)) continue;
    const staging = `${target}.${randomUUID()}.tmp`;
    await writeFile(staging, bytes);
    await rename(staging, target);
    copied++;
  }
  return { copied };
}
