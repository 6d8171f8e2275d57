import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createLogger, flushLogger, logDestination } from '../../src/core/logger.js';

// The log destination writes pino's lines in batches (of LOG_BATCH_BYTES, or after LOG_FLUSH_MS):
// what reaches the file must be every line, in order, byte for byte as pino made it.

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'water-logs-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('logDestination', () => {
  it('writes every line in order, byte for byte as pino makes it, once flushLogger resolves', async () => {
    const file = join(dir, 'out.log');
    const made: string[] = [];
    const written = createLogger('info', logDestination(file));
    const recorded = createLogger('info', { write: (line: string) => void made.push(line) });
    const texts = ['plain', 'é ü ß', '"quoted" \\ back', '日本語 🚰', 'x'.repeat(5000)];
    for (let i = 0; i < 500; i++) {
      const fields = { i, text: texts[i % texts.length] };
      written.info('line', fields);
      recorded.info('line', fields);
    }
    await flushLogger(written);

    const lines = (await readFile(file, 'utf8')).split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(500);
    const withoutTime = (line: string): string => line.replace(/"time":"[^"]*"/, '');
    expect(lines.map(withoutTime)).toEqual(made.map((line) => withoutTime(line.replace(/\n$/, ''))));
  });
});
