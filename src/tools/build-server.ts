import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

import { PACKAGE_ROOT } from '../core/package-info.js';
import { DOCS_ASSETS } from '../openapi/docs-page.js';
import { LUA_DIR } from '../store/redis/lua-files.js';
import { buildServerFiles, HEALTHCHECK_BUNDLE_NAME, SERVER_BUNDLE_NAME } from './server-files.js';
import { NOTICES_FILE } from './third-party-notices.js';

/**
 * `npm run build` (and `npm start`) runs this after tsc: dist/main.js and every module it
 * imports, dependencies included, as one file, dist/water-sandbox.js, which `npm start`, the
 * package's bin and the image run; the container's healthcheck likewise; and the API reference's
 * files and the third-party notices of all of them (see server-files.ts). One file loads in a fraction of the time of some 400 (the
 * start-up benchmark: about a fifth of a second less on Node 20). Left alone when no module of
 * dist/ and no Lua script of the Redis store (which the server bundle holds; tsc does not see
 * them) changed since they were made.
 */
const DIST = join(PACKAGE_ROOT, 'dist');
const BUNDLES = [SERVER_BUNDLE_NAME, HEALTHCHECK_BUNDLE_NAME].map((name) => join(DIST, name));
// The API reference's files and the third-party notices are made with the bundles.
const DOCS_FILES = [...DOCS_ASSETS.map((name) => join(DIST, 'docs-assets', name)), join(DIST, NOTICES_FILE)];

function newestModuleMs(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!['tools', 'dashboard-assets', 'docs-assets'].includes(entry.name))
        newest = Math.max(newest, newestModuleMs(path));
    } else if (entry.name.endsWith('.js') && !BUNDLES.includes(path)) {
      newest = Math.max(newest, statSync(path).mtimeMs);
    }
  }
  return newest;
}

// New or updated dependencies (npm install touches the lock file) are in the bundles too.
const lockFile = join(PACKAGE_ROOT, 'package-lock.json');
const dependenciesMs = existsSync(lockFile) ? statSync(lockFile).mtimeMs : 0;
const luaMs = Math.max(0, ...readdirSync(LUA_DIR).map((name) => statSync(join(LUA_DIR, name)).mtimeMs));
const madeMs = Math.min(...BUNDLES.map((path) => (existsSync(path) ? statSync(path).mtimeMs : 0)));
if (DOCS_FILES.every((path) => existsSync(path)) && madeMs >= Math.max(newestModuleMs(DIST), dependenciesMs, luaMs)) {
  process.stdout.write(`server bundle up to date: ${relative(process.cwd(), join(DIST, SERVER_BUNDLE_NAME))}\n`);
} else {
  const warnings = await buildServerFiles(
    { main: join(DIST, 'main.js'), healthcheck: join(DIST, 'healthcheck.js') },
    DIST,
  );
  process.stdout.write(
    `server bundle built: ${relative(process.cwd(), join(DIST, SERVER_BUNDLE_NAME))}, with ${HEALTHCHECK_BUNDLE_NAME} and docs-assets/\n`,
  );
  for (const warning of warnings) process.stderr.write(`${warning}\n`);
}
