import { readFile } from 'node:fs/promises';

/**
 * docs/ci.md shows the Testcontainers example whole; the container suite (npm run
 * test:containers) runs it from examples/testcontainers/, so the two must be the same text.
 */
it('shows the Testcontainers example exactly as the container suite runs it', async () => {
  const docs = await readFile('docs/ci.md', 'utf8');
  const example = await readFile('examples/testcontainers/leak-alert.test.ts', 'utf8');
  const blocks = [...docs.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  expect(blocks).toContain(example);
  expect(example.split('\n').filter((line) => line !== '').length).toBeLessThan(20);
});
