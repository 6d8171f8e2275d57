import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';

import { findShown, pasteProblems, shellBlocks } from './commands.js';
import { DOC_FILES, hasCurl } from './guides.js';

/** A loopback port nothing listens on (taken, then let go). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * The docs paste: every ```sh block of the README and the guides runs as written, in order, in
 * one shell per file, and shows what it promises (test/docs/in-order.api.test.ts and
 * in-reverse.api.test.ts run them). The docs name the sandbox `$API` and the receiver
 * `$RECEIVER` with defaults (`API=${API:-http://localhost:8080}`), so a reader pastes them
 * unchanged and the test points them at its own ports. A block fenced ```sh skip is not run (it
 * starts a server, or needs Docker); ```sh fails is run and must answer an HTTP error. What a
 * block promises is written as `# → <a line it prints>` inside it, or as a ```json output
 * (```text output) block after it, or as a ```text receiver block: everything the receiver
 * (`npm run receiver`) prints meanwhile. `…` stands for any text within a line.
 */
describe('every runnable block of the docs', () => {
  it.each(
    DOC_FILES.flatMap((file) =>
      shellBlocks(file)
        .filter((b) => !b.skip || b.promises.length > 0)
        .map((b) => [`${b.file}:${b.line}`, b] as const),
    ),
  )('%s pastes as written', (_where, block) => {
    expect(pasteProblems(block)).toEqual([]);
  });

  it.each(DOC_FILES)('%s: its first runnable block checks the sandbox is there and resets the demo account', (file) => {
    const first = shellBlocks(file).find((b) => !b.skip);
    if (!first) return;
    expect(first.code).toMatch(/curl -sS --fail-with-body "?\$API\/healthz"?/);
    expect(first.code).toMatch(/curl -sS -X POST "?\$API\/sandbox\/reset"?/);
  });
});

(hasCurl ? describe : describe.skip)('the docs when no sandbox is running', () => {
  it.each(DOC_FILES.filter((file) => shellBlocks(file).some((b) => !b.skip)))(
    '%s: the first block says it cannot connect, in one line per command, with no stack trace',
    async (file) => {
      const first = shellBlocks(file).find((b) => !b.skip)!;
      // As a reader pastes it into a terminal: no set -e, every command runs.
      const { stderr } = spawnSync('bash', ['-c', first.code], {
        env: { ...process.env, API: `http://127.0.0.1:${await closedPort()}` },
        encoding: 'utf8',
      });
      expect(stderr).toMatch(/curl: \(7\) Failed to connect/);
      expect(stderr).not.toMatch(/SyntaxError|^\s+at /m);
    },
  );

  it('the JSON helper of the docs says there is no JSON, in one line, when the curl before it failed', async () => {
    const first = shellBlocks('README.md').find((b) => !b.skip)!;
    const helper = first.code.split('\n').find((line) => line.startsWith('json() '))!;
    const { stderr, status } = spawnSync(
      'bash',
      ['-c', `${helper}\ncurl -sS http://127.0.0.1:${await closedPort()}/v1/locations | json .total`],
      { encoding: 'utf8' },
    );
    expect(stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^curl: \(7\)/),
      'json: no JSON to read (did the curl before it fail?)',
    ]);
    expect(status).toBe(1);
  });
});

describe('a promise of the docs', () => {
  const printed = '{"now":"2026-03-10T15:30:00.000Z","offsetSeconds":0,"frozen":false}\nrun 5b1e: done\n';

  it('matches what was printed, with … for any text within a line', () => {
    expect(findShown(printed, '{"now":"…","offsetSeconds":0,"frozen":false}')).toBeGreaterThan(0);
    expect(findShown(printed, '{"now":"…","offsetSeconds":3600,"frozen":false}')).toBe(-1);
  });

  it('matches JSON laid out over several lines against JSON printed on one', () => {
    expect(
      findShown(printed, '{\n  "now": "2026-03-10T15:30:00.000Z",\n  "offsetSeconds": 0, "frozen": false\n}'),
    ).toBeGreaterThan(0);
  });

  it('starts and ends with a line: a part of a line is not a promise kept', () => {
    expect(findShown(printed, '"offsetSeconds":0')).toBe(-1);
    expect(findShown(printed, 'run 5b1e')).toBe(-1);
    expect(findShown(printed, 'run …: done')).toBeGreaterThan(0);
  });

  it('is looked for after the one before it, so promises keep their order', () => {
    const end = findShown(printed, 'run …: done');
    expect(findShown(printed, '{"now":…}', { from: end })).toBe(-1);
  });

  it('with whole, covers everything the receiver printed, so a count of notifications is kept exactly', () => {
    const received =
      '\nPOST /hooks\n{"type":"lowLeak","active":true}\n\nPOST /hooks\n{"type":"lowLeak","active":false}\n';
    expect(
      findShown(
        received,
        'POST /hooks\n{"type":"lowLeak","active":true}\nPOST /hooks\n{"type":"lowLeak","active":false}',
        { whole: true },
      ),
    ).toBeGreaterThan(0);
    expect(findShown(received, 'POST /hooks\n{"type":"lowLeak","active":true}', { whole: true })).toBe(-1);
  });
});
