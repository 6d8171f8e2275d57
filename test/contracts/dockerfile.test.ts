import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

// There is no Docker engine on the build machines, so the image is checked by lint and by shape.
describe('the Dockerfile', () => {
  it('passes dockerfilelint with no issue', async () => {
    const { stdout } = await run('node_modules/.bin/dockerfilelint', ['-o', 'json', 'Dockerfile']);
    const report = JSON.parse(stdout) as { totalIssues: number; files: { issues: unknown[] }[] };
    expect(report.files[0]!.issues).toEqual([]);
    expect(report.totalIssues).toBe(0);
  });

  it('builds on Node 24, runs as the node user, checks /healthz and starts the bundled server', async () => {
    const text = await readFile('Dockerfile', 'utf8');
    const froms = [...text.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(new Set(froms)).toEqual(new Set(['node:24-bookworm-slim']));
    expect(text).toMatch(/^USER node$/m);
    expect(text).toMatch(/^HEALTHCHECK .*CMD \["node", "dist\/water-sandbox-healthcheck.js"\]$/m);
    const startFlags = (JSON.parse(await readFile('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start.split(' ').filter((w) => w.startsWith('--'));
    expect(text).toMatch(new RegExp(`^CMD \\[${['node', ...startFlags, 'dist/water-sandbox.js'].map((w) => JSON.stringify(w)).join(', ')}\\]$`, 'm'));
    expect(text).toMatch(/DATA_DIR=\/data/);
    expect(text).toMatch(/HOST=0\.0\.0\.0/);
    // The runtime stage gets the bundles, not node_modules (test/contracts/image.test.ts starts it).
    const instructions = text.split('\n').filter((line) => !line.startsWith('#')).join('\n');
    expect(instructions).not.toMatch(/node_modules|--omit=dev/);
  });
});
