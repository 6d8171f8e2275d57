import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { createClient } from 'redis';

import { LUA_DIR } from '../../src/store/redis/lua-files.js';
import * as lua from '../../src/store/redis/lua.js';
import { useTestRedis } from '../helpers/redis-server.js';

/** The Lua scripts of the Redis store (src/store/redis/lua/), as the store sends them: header, helpers where used, the script. */
const SCRIPTS = Object.values(lua).filter(
  (value): value is lua.LuaScript => typeof value === 'object' && 'source' in value,
);
const FILES = readdirSync(LUA_DIR).filter((name) => name.endsWith('.lua'));
/** The functions of header.lua and helpers.lua: every script carries them, and most use only some. */
const PRELUDE_FUNCTIONS = ['header.lua', 'helpers.lua'].flatMap((file) =>
  [...readFileSync(join(LUA_DIR, file), 'utf8').matchAll(/^local function (\w+)/gm)].map((m) => m[1]!),
);

const redis = useTestRedis();

describe('the Lua scripts of the Redis store', () => {
  it('are one file each, and every file of lua/ is a script, the header or the helpers', () => {
    expect(SCRIPTS.length).toBeGreaterThanOrEqual(18);
    expect(FILES.sort()).toEqual(['header.lua', 'helpers.lua', ...SCRIPTS.map((s) => `${s.name}.lua`)].sort());
    expect(PRELUDE_FUNCTIONS).toEqual(expect.arrayContaining(['acct', 'refreshDue']));
  });

  it('each compiles in a real Redis (SCRIPT LOAD) under the SHA1 the store calls it by', async () => {
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      for (const script of SCRIPTS) {
        const sha = createHash('sha1').update(script.source).digest('hex');
        expect([script.name, await client.scriptLoad(script.source)]).toEqual([script.name, sha]);
      }
      await expect(client.scriptLoad(`${lua.SET_IF_ABSENT.source}\nlocal broken = (`)).rejects.toThrow(
        /Error compiling script/,
      );
    } finally {
      await client.close();
    }
  });

  it('each passes luacheck as Lua 5.1 (what Redis runs), with only the globals Redis gives a script', () => {
    const ignored = PRELUDE_FUNCTIONS.flatMap((name) => ['--ignore', `211/^${name}$`]);
    const luacheck = (name: string, source: string): { status: number | null; output: string } => {
      const run = spawnSync(
        'luacheck',
        [
          '--std',
          'lua51',
          '--read-globals',
          'redis',
          'cjson',
          'ARGV',
          'KEYS',
          '--no-max-line-length',
          ...ignored,
          '--formatter',
          'plain',
          '--filename',
          `${name}.lua`,
          '-',
        ],
        { input: source, encoding: 'utf8' },
      );
      if (run.error)
        throw new Error(
          `luacheck did not run (${run.error.message}): install it, e.g. apt-get install lua-check (Debian)`,
        );
      return { status: run.status, output: run.stdout + run.stderr };
    };
    for (const script of SCRIPTS)
      expect([script.name, luacheck(script.name, script.source)]).toEqual([script.name, { status: 0, output: '' }]);
    // It does find what it is for: a global read by mistake.
    expect(luacheck('faulty', `redis.call('GET', missing)\n${lua.SET_IF_ABSENT.source}`)).toMatchObject({
      status: 1,
      output: expect.stringContaining("accessing undefined variable 'missing'"),
    });
  });
});
