import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's folder (with package.json, fixtures/ and scenarios/): the nearest folder above
 * this module that has a package.json. This module is src/core/package-info.ts in development
 * and tests, dist/core/package-info.js when built, and inside dist/water-sandbox.js when bundled.
 */
function packageRoot(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
  }
}

export const PACKAGE_ROOT = packageRoot();

/** The sandbox's version, from package.json: the one place it is written. Reported by /healthz and `water-sandbox --version`. */
export const VERSION = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;
