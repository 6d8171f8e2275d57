import { existsSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { copyDocsAssets, swaggerUiFolder } from '../openapi/docs-assets.js';
import { DOCS_ASSETS } from '../openapi/docs-page.js';
import { bundleServer } from './server-bundle.js';
import { NOTICES_FILE, writeThirdPartyNotices } from './third-party-notices.js';

/** The server and the container's healthcheck, each bundled with its dependencies into one file of dist/. */
export const SERVER_BUNDLE_NAME = 'water-sandbox.js';
export const HEALTHCHECK_BUNDLE_NAME = 'water-sandbox-healthcheck.js';

/**
 * What the built server runs from besides the dashboard's bundle (build-assets.ts) and the
 * package's own files (package.json, fixtures/, scenarios/): the two bundles and the API
 * reference's files, written into `distDir`, with the third-party notices of all three
 * (THIRD-PARTY-NOTICES.txt; the build fails on a package whose licence is not allowed). Nothing else: the image ships exactly these, with no
 * node_modules (see the Dockerfile). `entries` are dist/main.js and dist/healthcheck.js after tsc,
 * or src/*.ts (esbuild reads TypeScript too, so a test can build without tsc).
 * Answers the problems worth a warning.
 */
export async function buildServerFiles(
  entries: { main: string; healthcheck: string },
  distDir: string,
): Promise<string[]> {
  await mkdir(distDir, { recursive: true });
  const [server, healthcheck] = await Promise.all([bundleServer(entries.main), bundleServer(entries.healthcheck)]);
  const serverPath = join(distDir, SERVER_BUNDLE_NAME);
  // Swagger UI's files go as they are: its licence, and the notices of what its bundle holds (its *.LICENSE.txt).
  const swaggerUi = swaggerUiFolder();
  await writeThirdPartyNotices(
    join(distDir, NOTICES_FILE),
    [
      { shippedAs: SERVER_BUNDLE_NAME, inputs: server.inputs },
      { shippedAs: HEALTHCHECK_BUNDLE_NAME, inputs: healthcheck.inputs },
      {
        shippedAs: 'docs-assets/',
        inputs: DOCS_ASSETS.map((name) => join(swaggerUi, name)),
        extraNotices: DOCS_ASSETS.map((name) => join(swaggerUi, `${name}.LICENSE.txt`)).filter((f) => existsSync(f)),
      },
    ],
    `the server and command line (${SERVER_BUNDLE_NAME}), the container's healthcheck (${HEALTHCHECK_BUNDLE_NAME}) and the API reference's files (docs-assets/)`,
  );
  await Promise.all([
    writeFile(serverPath, server.text),
    writeFile(join(distDir, HEALTHCHECK_BUNDLE_NAME), healthcheck.text),
    copyDocsAssets(join(distDir, 'docs-assets')),
  ]);
  // The bin: executable, as esbuild makes a file that starts with #! (chmod: an existing file keeps its mode on write).
  await chmod(serverPath, 0o755);
  return server.ascii ? [] : [`server bundle: not ASCII only, so it takes twice the memory (${server.reason})`];
}
