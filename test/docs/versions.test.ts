import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What a reader copies names the release they read about: every version the docs, the examples
 * and the Testcontainers module's comments give the Action (`water-sandbox@v<version>`), the image
 * (`water-sandbox:<version>`) or the packed tarball (`water-sandbox-<version>.tgz`) is
 * package.json's. A version bump changes them with it (docs/releasing.md).
 */
const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
  );

const FILES = [
  'README.md',
  'action.yml',
  'readiness/action.yml',
  ...files('docs'),
  ...files('examples'),
  ...files('src/testcontainers'),
];
const NAMED =
  /water-sandbox(?:\/readiness)?@v(\d+\.\d+\.\d+)|water-sandbox:(\d+\.\d+\.\d+)|water-sandbox-(\d+\.\d+\.\d+)\.tgz/g;

it(`names package.json's version (${version}) wherever the docs give the Action's tag, the image's or the tarball's`, () => {
  const named = FILES.flatMap((file) => [...readFileSync(file, 'utf8').matchAll(NAMED)].map((m) => `${file}: ${m[0]}`));
  expect(named.length).toBeGreaterThan(10);
  expect(named.filter((line) => !line.includes(version))).toEqual([]);
});
