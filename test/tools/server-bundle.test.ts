import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import * as lua from '../../src/store/redis/lua.js';
import { asciiOnlySource, bundleServer } from '../../src/tools/server-bundle.js';

const NOT_ASCII = /[^\x00-\x7f]/u;

describe('the server bundle is ASCII only, so V8 keeps its source at one byte a character', () => {
  it('writes a character outside ASCII in a comment as \\u{...} text and leaves the code as it was', async () => {
    const source = "// 10 °F — too cold\nexport const unit = '\\u00b0F'; /* ± */\n";
    const result = await asciiOnlySource(source);
    expect(result).toEqual({
      ascii: true,
      text: "// 10 \\u{b0}F \\u{2014} too cold\nexport const unit = '\\u00b0F'; /* \\u{b1} */\n",
    });
  });

  it('keeps a text whose character outside ASCII is in code (a tagged template), and says where', async () => {
    const source = 'const tag = (s) => s.raw[0];\n// – a comment\nexport const text = tag`Loading…`;\n';
    const result = await asciiOnlySource(source);
    expect(result.ascii).toBe(false);
    expect(result.text).toBe(source);
    expect(result).toMatchObject({ reason: expect.stringContaining('Loading…') });
  });

  it('returns an ASCII text as it is', async () => {
    expect(await asciiOnlySource('export const a = 1;\n')).toEqual({ ascii: true, text: 'export const a = 1;\n' });
  });

  it("the sandbox's own bundle comes out ASCII only", async () => {
    const bundle = await bundleServer('src/main.ts');
    expect(bundle.ascii ? '' : bundle.reason).toBe('');
    expect(NOT_ASCII.exec(bundle.text)).toBeNull();
    expect(bundle.text.length).toBeGreaterThan(1_000_000);
  }, 60_000);
});

describe('the server bundle carries the Lua scripts of the Redis store', () => {
  it('inside itself, so it runs them where there is no src/ (the npm package, the image)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lua-bundle-'));
    try {
      const entry = join(dir, 'entry.ts');
      await writeFile(
        entry,
        `import * as lua from ${JSON.stringify(resolve('src/store/redis/lua.ts'))};\nprocess.stdout.write(JSON.stringify(lua));\n`,
      );
      const bundle = await bundleServer(entry);
      await writeFile(join(dir, 'bundle.mjs'), bundle.text);
      const run = spawnSync(process.execPath, [join(dir, 'bundle.mjs')], { cwd: dir, encoding: 'utf8' });
      expect(run.stderr).toBe('');
      expect(JSON.parse(run.stdout)).toEqual(JSON.parse(JSON.stringify(lua)));
      expect(lua.CLAIM_DELIVERY.source).toContain(await readFile('src/store/redis/lua/claim-delivery.lua', 'utf8'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
