import { chmodSync, existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

import { PACKAGE_ROOT } from '../core/package-info.js';
import { bundleServer } from './server-bundle.js';

/**
 * `npm run build` (and `npm start`) runs this after tsc: dist/main.js and every module it
 * imports, dependencies included, as one file, dist/water-sandbox.js, which `npm start`, the
 * package's bin and the image run. One file loads in a fraction of the time of some 400 (the
 * start-up benchmark: about a fifth of a second less on Node 20). Left alone when no module
 * of dist/ changed since it was made.
 */
const DIST = join(PACKAGE_ROOT, 'dist');
const ENTRY = join(DIST, 'main.js');
export const SERVER_BUNDLE = join(DIST, 'water-sandbox.js');

function newestModuleMs(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'tools' && entry.name !== 'dashboard-assets') newest = Math.max(newest, newestModuleMs(path));
    } else if (entry.name.endsWith('.js') && path !== SERVER_BUNDLE) {
      newest = Math.max(newest, statSync(path).mtimeMs);
    }
  }
  return newest;
}

// New or updated dependencies (npm install touches the lock file) are in the bundle too.
const lockFile = join(PACKAGE_ROOT, 'package-lock.json');
const dependenciesMs = existsSync(lockFile) ? statSync(lockFile).mtimeMs : 0;
const upToDate = existsSync(SERVER_BUNDLE) && statSync(SERVER_BUNDLE).mtimeMs >= Math.max(newestModuleMs(DIST), dependenciesMs);
if (upToDate) {
  process.stdout.write(`server bundle up to date: ${relative(process.cwd(), SERVER_BUNDLE)}\n`);
} else {
  const source = await bundleServer(ENTRY);
  writeFileSync(SERVER_BUNDLE, source.text);
  // The bin: executable, as esbuild makes a file that starts with #! (chmod: an existing file keeps its mode on write).
  chmodSync(SERVER_BUNDLE, 0o755);
  process.stdout.write(`server bundle built: ${relative(process.cwd(), SERVER_BUNDLE)}\n`);
  if (!source.ascii) process.stderr.write(`server bundle: not ASCII only, so it takes twice the memory (${source.reason})\n`);
}
