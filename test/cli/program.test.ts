import { readFile } from 'node:fs/promises';
import { PassThrough } from 'node:stream';

import { shellWord } from '../../src/cli/commands.js';
import type { CliContext } from '../../src/cli/context.js';
import { formatDuration, parseDuration } from '../../src/cli/duration.js';
import { runCli } from '../../src/cli/program.js';
import { hasHeapFlags, SERVE_V8_FLAGS } from '../../src/cli/serve.js';
import { moveLeadingOptions } from '../../src/cli/usage.js';
import { readServerEvents, type ServerEvent } from '../../src/client/sse.js';
import { loadConfig } from '../../src/config.js';

/** The CLI's pieces in-process: the heap flags decision, durations, shell words, the event-stream reader, the package's shape. */

function fakeContext(
  env: Record<string, string> = {},
  execArgv: string[] = [],
): CliContext & { out: string; err: string; reexecs: (readonly string[])[] } {
  const ctx = {
    env,
    out: '',
    err: '',
    reexecs: [] as (readonly string[])[],
    execArgv,
    stdio: { input: new PassThrough(), output: new PassThrough() },
    stdout: (text: string) => void (ctx.out += text),
    stderr: (text: string) => void (ctx.err += text),
    // The sandbox stops as soon as it is up.
    untilStopSignal: () => Promise.resolve('SIGTERM'),
    untilParentGone: () => new Promise<string>(() => undefined),
    reexec: (flags: readonly string[]) => {
      ctx.reexecs.push(flags);
      return false;
    },
  };
  return ctx;
}

describe('the V8 heap flags of serve', () => {
  const flagsOfStart = async (): Promise<string[]> => {
    const pkg = JSON.parse(await readFile('package.json', 'utf8')) as { scripts: { start: string } };
    return pkg.scripts.start.split(' ').filter((w) => w.startsWith('--'));
  };

  it('are the flags of npm start (and so of the Dockerfile CMD, test/contracts/dockerfile.test.ts)', async () => {
    expect([...SERVE_V8_FLAGS]).toEqual(await flagsOfStart());
  });

  it('serve without a heap cap asks to re-execute itself with them, and runs in-process where it cannot', async () => {
    const ctx = fakeContext({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: ':memory:', LOG_LEVEL: 'silent' });
    expect(await runCli([], ctx)).toBe(0);
    expect(ctx.reexecs).toEqual([SERVE_V8_FLAGS]);
    expect(ctx.err).toContain('water-sandbox is running at http://localhost:');
  });

  it('is left alone when the command line or NODE_OPTIONS has a heap cap', async () => {
    expect(hasHeapFlags(['--max-old-space-size=256', '--max-semi-space-size=16'], undefined)).toBe(true);
    expect(hasHeapFlags([], '--enable-source-maps --max_old_space_size=1024')).toBe(true);
    expect(hasHeapFlags(['--import', 'x.mjs'], '--enable-source-maps')).toBe(false);
    const ctx = fakeContext({
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: ':memory:',
      LOG_LEVEL: 'silent',
      NODE_OPTIONS: '--max-old-space-size=512',
    });
    expect(await runCli(['serve'], ctx)).toBe(0);
    expect(ctx.reexecs).toEqual([]);
  });

  it('a bad value is refused before anything is re-executed', async () => {
    const ctx = fakeContext();
    expect(await runCli(['--port', '99999'], ctx)).toBe(2);
    expect(ctx.reexecs).toEqual([]);
    expect(ctx.err).toContain('--port: PORT="99999"');
  });
});

describe('durations of clock advance', () => {
  it.each([
    ['3600', 3600],
    ['90s', 90],
    ['15m', 900],
    ['1h', 3600],
    ['1h30m', 5400],
    ['+2d', 172800],
    ['1.5', 1.5],
  ])('%s is %d seconds', (text, seconds) => expect(parseDuration(text)).toBe(seconds));

  it.each(['', '0', '-5', '1x', 'h', '1h 30m', 'soon'])('%j is a usage error (exit 2)', (text) => {
    expect(() => parseDuration(text)).toThrow(expect.objectContaining({ exitCode: 2 }));
  });

  it('formats offsets for progress lines', () => {
    expect([0, 59, 600, 5400, 90061].map(formatDuration)).toEqual(['+0s', '+59s', '+10m', '+1h30m', '+1d1h1m1s']);
  });
});

describe('shell words of accounts create', () => {
  it('leave safe values bare and quote the rest so eval gives them back', () => {
    expect(shellWord('sbx_abc-DEF_123')).toBe('sbx_abc-DEF_123');
    expect(shellWord('a@b.example')).toBe('a@b.example');
    expect(shellWord('two words')).toBe("'two words'");
    expect(shellWord("it's $HOME")).toBe(`'it'\\''s $HOME'`);
  });
});

describe('the event-stream reader of listen', () => {
  it('reads events split across chunks, skips comments, joins data lines', async () => {
    const chunks = [
      ': ping\n\nevent: ready\nda',
      'ta: {"a":1}\n\n',
      'event: request\ndata: line1\ndata: line2\n\n: ping\n\n',
    ];
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
        controller.close();
      },
    });
    const events: ServerEvent[] = [];
    let activity = 0;
    await readServerEvents(
      body,
      (e) => events.push(e),
      () => activity++,
    );
    expect(events).toEqual([
      { event: 'ready', data: '{"a":1}' },
      { event: 'request', data: 'line1\nline2' },
    ]);
    expect(activity).toBe(3);
  });
});

describe('the published package', () => {
  it('has a bin, the files it needs, a build before packing, and is not private', async () => {
    const pkg = JSON.parse(await readFile('package.json', 'utf8')) as Record<string, unknown> & {
      scripts: Record<string, string>;
      files: string[];
    };
    expect(pkg['private']).toBeUndefined();
    expect(pkg['bin']).toEqual({ 'water-sandbox': 'dist/water-sandbox.js' });
    expect(pkg.scripts['prepack']).toBe('npm run build && npm run build:package');
    // The dashboard's and the API reference's files are not .js only (styles, source maps, the manifest, an icon); test/contracts/package.test.ts packs it.
    expect(pkg.files).toEqual(
      expect.arrayContaining([
        'dist/water-sandbox.js',
        'dist/package/',
        'dist/dashboard-assets/',
        'dist/docs-assets/',
        'fixtures/',
        'scenarios/',
      ]),
    );
    expect((await readFile('src/main.ts', 'utf8')).startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it("falls back to the package's own fixtures and scenarios where the working directory has none", () => {
    const config = loadConfig({}, () => false, '/opt/water-sandbox');
    expect(config.fixturesDir).toBe('/opt/water-sandbox/fixtures');
    expect(config.scenariosDir).toBe('/opt/water-sandbox/scenarios');
    const local = loadConfig({}, (path) => path === './fixtures' || path === './scenarios', '/opt/water-sandbox');
    expect([local.fixturesDir, local.scenariosDir]).toEqual(['./fixtures', './scenarios']);
    expect(loadConfig({ FIXTURES_DIR: 'mine' }, () => false, '/opt/x').fixturesDir).toBe('mine');
  });
});

describe('client options before the command', () => {
  const movable = [
    { long: '--api-key', takesValue: true },
    { long: '--json', takesValue: false },
  ];

  it.each([
    [
      ['--api-key', 'K', 'clock', 'advance', '1h'],
      ['clock', 'advance', '1h', '--api-key', 'K'],
    ],
    [
      ['--api-key=K', '--json', 'clock'],
      ['clock', '--api-key=K', '--json'],
    ],
    [
      ['--json', 'trigger', 'highLeak', '--', '-x'],
      ['trigger', 'highLeak', '--json', '--', '-x'],
    ],
    [
      ['clock', '--api-key', 'K'],
      ['clock', '--api-key', 'K'],
    ],
    [
      ['--port', '9000', '--api-key', 'K'],
      ['--port', '9000', '--api-key', 'K'],
    ],
    [[], []],
  ])('%j is read as %j', (given, read) => {
    expect(moveLeadingOptions(given, movable)).toEqual(read);
  });
});
