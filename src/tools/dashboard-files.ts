import { join } from 'node:path';

import { PACKAGE_ROOT } from '../core/package-info.js';
import { buildDashboardAssets, type BuildResult } from '../dashboard/build-assets.js';
import { NOTICES_FILE, writeThirdPartyNotices } from './third-party-notices.js';

/**
 * The dashboard's bundle (build-assets.ts; skipped when up to date) and its third-party notices
 * beside it, from the files its manifest records as the bundle's inputs (esbuild's metafile).
 * The notices are written every time: a build that skipped the bundle still leaves them current.
 */
export async function buildDashboardFiles(options: { root?: string; outDir?: string } = {}): Promise<BuildResult> {
  const result = await buildDashboardAssets(options);
  await writeThirdPartyNotices(
    join(result.outDir, NOTICES_FILE),
    [
      {
        shippedAs: 'dashboard-assets/',
        inputs: Object.keys(result.manifest.fingerprint.inputs),
        workingDir: options.root ?? PACKAGE_ROOT,
      },
    ],
    "the dashboard's browser bundle (dashboard-assets/)",
  );
  return result;
}
