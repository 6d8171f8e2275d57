import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { SERVE_V8_FLAGS } from '../../src/cli/serve.js';

/**
 * scripts/start.mjs (`npm start`) in a copy of the clone's layout whose build steps are stand-ins
 * that log their calls: the compiler and the bundlers run only when something changed, they say
 * what they do, and the server then runs in the same process with the arguments given.
 */

interface Layout {
  root: string;
  calls: () => string[];
}

/** A clone's layout: sources, settings, a start script, and a compiler and bundlers that log each call and write what the real ones would. */
function givenClone(): Layout {
  const root = mkdtempSync(join(tmpdir(), 'npm-start-'));
  const log = join(root, 'calls.log');
  mkdirSync(join(root, 'scripts'));
  copyFileSync('scripts/start.mjs', join(root, 'scripts', 'start.mjs'));
  for (const file of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'])
    writeFileSync(join(root, file), '{}');
  mkdirSync(join(root, 'src', 'cli'), { recursive: true });
  writeFileSync(join(root, 'src', 'main.ts'), '');
  writeFileSync(join(root, 'src', 'cli', 'program.ts'), '');
  const logCall = (name: string): string =>
    `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(log)}, ${JSON.stringify(name)} + ' ' + process.argv.slice(2).join(' ') + '\\n');\n`;
  mkdirSync(join(root, 'node_modules', 'typescript', 'bin'), { recursive: true });
  // The compiler stand-in writes the bundlers' stand-ins, as tsc writes dist/tools; FAIL_TSC makes it fail.
  writeFileSync(
    join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
    `${logCall('tsc')}import { mkdirSync, writeFileSync } from 'node:fs';\n` +
      `if (process.env.FAIL_TSC) { console.error('src/main.ts(1,1): error TS1005'); process.exit(2); }\n` +
      `mkdirSync(${JSON.stringify(join(root, 'dist', 'tools'))}, { recursive: true });\n` +
      `writeFileSync(${JSON.stringify(join(root, 'dist', 'tools', 'build-dashboard.js'))}, ${JSON.stringify(
        `${logCall('build-dashboard')}import { mkdirSync, writeFileSync } from 'node:fs';\nmkdirSync(${JSON.stringify(join(root, 'dist', 'dashboard-assets'))}, { recursive: true });\nwriteFileSync(${JSON.stringify(join(root, 'dist', 'dashboard-assets', 'manifest.json'))}, '{}');\n`,
      )});\n` +
      `writeFileSync(${JSON.stringify(join(root, 'dist', 'tools', 'build-server.js'))}, ${JSON.stringify(
        `${logCall('build-server')}import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(join(root, 'dist', 'water-sandbox.js'))}, "console.log('server ' + JSON.stringify(process.argv.slice(2)) + ' ' + process.execArgv.join(' '));\\n");\n`,
      )});\n`,
  );
  return {
    root,
    calls: () => {
      try {
        return readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .map((line) => line.trim());
      } catch {
        return [];
      }
    },
  };
}

/** `npm start -- <args>` as package.json runs it: node with the V8 flags, on the start script. */
function npmStart(
  layout: Layout,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const scripts = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } };
  expect(scripts.scripts.start).toBe(`node ${SERVE_V8_FLAGS.join(' ')} scripts/start.mjs`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...SERVE_V8_FLAGS, 'scripts/start.mjs', ...args], {
      cwd: layout.root,
      env: { PATH: process.env['PATH'] ?? '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('npm start (scripts/start.mjs)', () => {
  let layout: Layout;
  beforeEach(() => {
    layout = givenClone();
  });
  afterEach(() => rmSync(layout.root, { recursive: true, force: true }));

  it('on a fresh clone says what it does as it compiles and bundles, then runs the server in its own process with the V8 flags and the arguments', async () => {
    const first = await npmStart(layout, ['--port', '9000']);
    expect(first.code).toBe(0);
    expect(first.stderr.split('\n').filter((l) => l.startsWith('water-sandbox:'))).toEqual([
      'water-sandbox: first start: compiling TypeScript into dist/ and bundling the dashboard and the server (about half a minute; later starts take under a second)',
      'water-sandbox: compiling TypeScript (tsc -b tsconfig.build.json)',
      'water-sandbox: bundling the dashboard',
      'water-sandbox: bundling the server',
      expect.stringMatching(/^water-sandbox: built in \d+\.\d s; starting$/),
    ]);
    expect(layout.calls()).toEqual(['tsc -b tsconfig.build.json', 'build-dashboard', 'build-server']);
    expect(first.stdout).toBe(`server ["--port","9000"] ${SERVE_V8_FLAGS.join(' ')}\n`);
  });

  it('with nothing changed, starts no compiler and no bundler and says nothing of a build', async () => {
    await npmStart(layout);
    const again = await npmStart(layout, ['--seed', '7']);
    expect(again.code).toBe(0);
    expect(again.stderr).toBe('');
    expect(layout.calls()).toHaveLength(3);
    expect(again.stdout).toContain('server ["--seed","7"]');
  });

  it('builds again when a source file is newer than the last build, or a dependency changed', async () => {
    await npmStart(layout);
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(layout.root, 'src', 'cli', 'program.ts'), later, later);
    const changed = await npmStart(layout);
    expect(changed.stderr).toContain(
      'water-sandbox: sources changed since the last build: building again (a few seconds)',
    );
    expect(layout.calls()).toHaveLength(6);

    const evenLater = new Date(Date.now() + 120_000);
    utimesSync(join(layout.root, 'package-lock.json'), evenLater, evenLater);
    await npmStart(layout);
    expect(layout.calls()).toHaveLength(9);
  });

  it("stops with the compiler's exit code and says the sandbox was not started when a step fails", async () => {
    const failed = await npmStart(layout, [], { FAIL_TSC: '1' });
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain('error TS1005');
    expect(failed.stderr).toContain('water-sandbox: compiling TypeScript failed; the sandbox was not started');
    expect(failed.stdout).toBe('');
    expect(layout.calls()).toEqual(['tsc -b tsconfig.build.json']);
  });
});
