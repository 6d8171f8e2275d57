import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { PACKAGE_ROOT } from '../core/package-info.js';

/** Where the page's bundled browser code lives: dist/dashboard-assets of the package. */
export const ASSETS_SUBDIR = 'dist/dashboard-assets';
export const ASSETS_DIR = join(PACKAGE_ROOT, ASSETS_SUBDIR);

export const MANIFEST_FILE = 'manifest.json';

/** What the bundler writes next to the files (see build-assets.ts). */
export interface AssetManifest {
  /** File names (with their content hash) of the page's script and style sheet. */
  script: string;
  style: string;
  /** The presenter view's (GET /demo). */
  demo: { script: string; style: string };
  /** Every file of the build, the ones above included, with source maps. */
  files: string[];
  /** What the build was made from: a hash per input file, and the bundler and its settings. */
  fingerprint: { builder: string; inputs: Record<string, string> };
}

export interface DashboardAssets {
  script: string;
  style: string;
  demo: { script: string; style: string };
  /** File name → its bytes and content type. */
  files: ReadonlyMap<string, { body: Buffer; contentType: string }>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

const contentTypeOf = (name: string): string =>
  CONTENT_TYPES[name.slice(name.lastIndexOf('.'))] ?? 'application/octet-stream';

/**
 * Reads the built assets into memory (a few hundred kilobytes): they are served from there with
 * long-lived caching. Answers why not when they are missing, so the page can say how to build them.
 */
export function loadDashboardAssets(dir: string = ASSETS_DIR): DashboardAssets | { missing: string } {
  const manifestPath = join(dir, MANIFEST_FILE);
  if (!existsSync(manifestPath)) return { missing: `${manifestPath} does not exist` };
  try {
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as AssetManifest;
    const files = new Map(
      manifest.files.map((name) => [name, { body: readFileSync(join(dir, name)), contentType: contentTypeOf(name) }]),
    );
    if (!files.has(manifest.script) || !files.has(manifest.style))
      return { missing: `${manifestPath} names no script or style sheet` };
    // A build of an older version has no presenter view: built again, it has.
    if (
      !(manifest.demo as AssetManifest['demo'] | undefined) ||
      !files.has(manifest.demo.script) ||
      !files.has(manifest.demo.style)
    )
      return { missing: `${manifestPath} names no presenter view (GET /demo): build it again` };
    return { script: manifest.script, style: manifest.style, demo: manifest.demo, files };
  } catch (error) {
    return { missing: `${manifestPath} could not be read: ${(error as Error).message}` };
  }
}
