import { readFileSync } from 'node:fs';

import { releaseNotes } from './release-notes.js';

/**
 * `npm run --silent release-notes -- v<version>`: prints CHANGELOG.md's section for the tag, the
 * release's notes (the release workflow runs it); exits 1 saying why when there is none to publish.
 * Reads CHANGELOG.md and package.json of the current folder (npm runs it from the repository's).
 */
const [tag] = process.argv.slice(2);
try {
  if (tag === undefined) throw new Error('give the tag: npm run --silent release-notes -- v<version>');
  const changelog = readFileSync('CHANGELOG.md', 'utf8');
  const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
  process.stdout.write(releaseNotes(changelog, tag, version));
} catch (error) {
  process.stderr.write(`release-notes: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
