import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { releaseNotes } from '../../src/tools/release-notes.js';

const CHANGELOG = `# Changelog

Some words about the form.

## [1.3.0] - unreleased

### Added

- something not released yet

## [1.2.0] - 2027-03-04

### Added

- \`water-sandbox thing\`: does a thing,
  on two lines.

### Changed

### Fixed

- a bug.

### Security

## [1.1.0] - 2027-01-02

### Added

- the old thing.

[1.2.0]: https://example.com/compare/v1.1.0...v1.2.0
`;

describe("the release's notes", () => {
  it("are the tag's section of the changelog, its empty headings left out, down to the next section", () => {
    expect(releaseNotes(CHANGELOG, 'v1.2.0', '1.2.0')).toBe(
      '### Added\n\n- `water-sandbox thing`: does a thing,\n  on two lines.\n\n### Fixed\n\n- a bug.\n',
    );
  });

  it('of the last section, without the link definitions that end the file', () => {
    expect(releaseNotes(CHANGELOG, 'v1.1.0', '1.1.0')).toBe('### Added\n\n- the old thing.\n');
  });

  it.each([
    ['1.2.0', '1.2.0', 'the tag "1.2.0" is not v<major>.<minor>.<patch>'],
    ['v1.2', '1.2.0', 'the tag "v1.2" is not v<major>.<minor>.<patch>'],
    ['v1.2.0', '1.3.0', "the tag v1.2.0 is not package.json's version (1.3.0): bump the version before tagging"],
    [
      'v1.3.0',
      '1.3.0',
      'CHANGELOG.md\'s section for 1.3.0 is dated "unreleased", not YYYY-MM-DD: date it (the day of the release) before tagging',
    ],
    ['v2.0.0', '2.0.0', 'CHANGELOG.md has no section "## [2.0.0] - <date>"'],
  ])('are refused for the tag %s with package.json at %s: %s', (tag, version, message) => {
    expect(() => releaseNotes(CHANGELOG, tag, version)).toThrow(message);
  });

  it('are refused when the section has nothing under its headings', () => {
    expect(() => releaseNotes('## [1.0.0] - 2027-01-01\n\n### Added\n\n### Fixed\n', 'v1.0.0', '1.0.0')).toThrow(
      "CHANGELOG.md's section for 1.0.0 is empty",
    );
  });
});

describe('npm run release-notes', () => {
  const script = resolve('src/tools/print-release-notes.ts');
  const registerTs = resolve('test/store/crash/register-ts.mjs');
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'water-sandbox-release-notes-'));
    writeFileSync(join(dir, 'CHANGELOG.md'), CHANGELOG);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const run = (tag: string, version: string): { status: number | null; stdout: string; stderr: string } => {
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'water-sandbox', version }));
    return spawnSync(process.execPath, ['--import', registerTs, script, tag], {
      cwd: dir,
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] ?? '' },
    });
  };

  it("prints the notes of the folder's CHANGELOG.md for the tag of package.json's version", () => {
    expect(run('v1.2.0', '1.2.0')).toMatchObject({
      status: 0,
      stdout: releaseNotes(CHANGELOG, 'v1.2.0', '1.2.0'),
      stderr: '',
    });
  });

  it('exits 1, printing nothing, and says why on stderr when there is nothing to publish', () => {
    expect(run('v1.3.0', '1.3.0')).toEqual({
      status: 1,
      stdout: '',
      stderr: expect.stringMatching(/^release-notes: CHANGELOG\.md's section for 1\.3\.0 is dated "unreleased"/),
      pid: expect.any(Number),
      output: expect.any(Array),
      signal: null,
    });
  });
});
