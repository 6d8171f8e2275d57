import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { PACKAGE_ROOT } from '../../core/package-info.js';

/** The Lua scripts of the Redis store, one file each (see lua.ts). */
export const LUA_DIR = join(PACKAGE_ROOT, 'src', 'store', 'redis', 'lua');

/**
 * The text of lua/<name>.lua, read from the package's src/ in tests and in the unbundled build.
 * The server bundle, which `npm start`, the npm package and the image run (none of them with
 * src/), has this module replaced by one holding every file's text (tools/server-bundle.ts).
 */
export function readLuaFile(name: string): string {
  return readFileSync(join(LUA_DIR, `${name}.lua`), 'utf8');
}
