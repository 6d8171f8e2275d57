import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, posix, resolve } from 'node:path';

import { buildDashboardFiles } from '../../src/tools/dashboard-files.js';
import { buildServerFiles } from '../../src/tools/server-files.js';
import { signInToDashboard } from '../helpers/dashboard-sign-in.js';
import { DEMO_API_KEY, bearer } from '../helpers/demo.js';
import { argsOf, pairsOf, parseDockerfile, type Stage } from '../helpers/dockerfile.js';

/**
 * There is no Docker engine on the build machines, so this builds what the Dockerfile's build
 * stage builds (the same functions as `npm run build`, from src/), lays out the runtime stage's
 * files the way its COPY lines say, and starts the server from exactly those files, as the
 * image's CMD, with the image's ENV: no node_modules anywhere it could look. Then the
 * HEALTHCHECK command, the pages that read files beside the bundle, and a graceful stop.
 */

/** The image's own size limit: what the runtime stage adds to its base (issue 23). */
const MAX_ADDED_BYTES = 15_000_000;

/** Files under `path` (a file or a folder), and their total size. */
async function filesUnder(path: string): Promise<{ files: string[]; bytes: number }> {
  const info = await stat(path);
  if (!info.isDirectory()) return { files: [path], bytes: info.size };
  const result = { files: [] as string[], bytes: 0 };
  for (const entry of await readdir(path)) {
    const inner = await filesUnder(join(path, entry));
    result.files.push(...inner.files);
    result.bytes += inner.bytes;
  }
  return result;
}

/** Resolves with the first match of `pattern` in what `stream` prints, or rejects when the process exits first. */
function waitForOutput(
  child: ReturnType<typeof spawn>,
  pattern: RegExp,
  seen: { text: string },
): Promise<RegExpExecArray> {
  return new Promise((resolvePromise, reject) => {
    const check = (): void => {
      const match = pattern.exec(seen.text);
      if (match) {
        child.stdout?.off('data', check);
        child.stderr?.off('data', check);
        child.off('exit', onExit);
        resolvePromise(match);
      }
    };
    const onExit = (code: number | null): void =>
      reject(new Error(`the server exited (${String(code)}) before ${String(pattern)}:\n${seen.text}`));
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    child.once('exit', onExit);
    check();
  });
}

const run = (command: string[], options: { cwd: string; env: Record<string, string> }): Promise<number | null> =>
  new Promise((resolvePromise) => {
    const child = spawn(process.execPath, command.slice(1), { ...options, stdio: 'ignore' });
    child.once('exit', (code) => resolvePromise(code));
  });

describe('the image', () => {
  let work: string;
  /** The build stage's /app. */
  let built: string;
  /** The runtime image's root ("/"). */
  let root: string;
  let runtime: Stage;
  let workdir: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'water-sandbox-image-'));
    built = join(work, 'build', 'app');
    root = join(work, 'image');
    const { stages } = parseDockerfile(await readFile('Dockerfile', 'utf8'));
    const build = stages.find((s) => s.name === 'build');
    runtime = stages.at(-1)!;
    if (!build || build === runtime) throw new Error('the Dockerfile has no build stage before its runtime stage');
    expect(argsOf(build, 'WORKDIR')).toEqual(['/app']);
    expect(argsOf(build, 'RUN').at(-1)).toBe('npm run build');
    // What `npm run build` makes that the runtime can use, from src/ (esbuild compiles it as tsc would).
    await buildServerFiles({ main: 'src/main.ts', healthcheck: 'src/healthcheck.ts' }, join(built, 'dist'));
    await buildDashboardFiles({ outDir: join(built, 'dist', 'dashboard-assets') });

    // The runtime stage's COPY lines, in order: from the build stage, or from the build context (this folder).
    workdir = argsOf(runtime, 'WORKDIR').at(-1) ?? '/';
    for (const copy of runtime.instructions.filter((i) => i.keyword === 'COPY')) {
      const args = copy.args;
      const words = args.split(' ');
      const from = copy.flags.find(([name]) => name === 'from')?.[1] ?? null;
      if (copy.flags.some(([name]) => name !== 'from')) throw new Error(`COPY ${args}: only --from is read here`);
      const destination = words.pop()!;
      const target = join(root, posix.resolve(workdir, destination));
      for (const source of words) {
        if (from !== null && from !== 'build') throw new Error(`COPY ${args}: from an unknown stage`);
        const path =
          from === 'build' ? join(built, posix.relative('/app', posix.resolve('/app', source))) : resolve(source);
        if (!existsSync(path)) throw new Error(`COPY ${args}: ${source} is not made by the build`);
        const into = destination.endsWith('/') || words.length > 1 ? join(target, basename(path)) : target;
        await mkdir(dirname(into), { recursive: true });
        await cp(path, into, { recursive: true });
      }
    }
    // The one RUN of the runtime stage makes the data volume's folder.
    expect(argsOf(runtime, 'RUN')).toEqual(['mkdir -p /data && chown node:node /data']);
    await mkdir(join(root, 'data'));
  }, 180_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it(`adds at most ${MAX_ADDED_BYTES / 1e6} MB to its base, and no node_modules`, async () => {
    const { files, bytes } = await filesUnder(root);
    process.stdout.write(`the runtime stage adds ${(bytes / 1e6).toFixed(2)} MB in ${files.length} files\n`);
    expect(bytes).toBeLessThanOrEqual(MAX_ADDED_BYTES);
    expect(files.filter((f) => f.includes('node_modules'))).toEqual([]);
  });

  it('carries the licence, its NOTICE, and the third-party notices beside each bundle, listing what is in it', async () => {
    const app = join(root, workdir);
    expect(await readFile(join(app, 'LICENSE'), 'utf8')).toBe(await readFile('LICENSE', 'utf8'));
    expect(await readFile(join(app, 'NOTICE'), 'utf8')).toBe(await readFile('NOTICE', 'utf8'));
    const server = await readFile(join(app, 'dist', 'THIRD-PARTY-NOTICES.txt'), 'utf8');
    for (const name of ['express', 'zod', 'swagger-ui-dist'])
      expect(server).toMatch(new RegExp(`^${name} +\\S+ +MIT|^${name} +\\S+ +Apache-2\\.0`, 'm'));
    expect(await readFile(join(app, 'dist', 'dashboard-assets', 'THIRD-PARTY-NOTICES.txt'), 'utf8')).toMatch(
      /^uplot +\S+ +MIT/m,
    );
  });

  it('has a healthcheck that bundles the configuration, not the server (no Express, no pino)', async () => {
    const healthcheck = await readFile(join(root, workdir, 'dist', 'water-sandbox-healthcheck.js'), 'utf8');
    expect(healthcheck.length).toBeLessThan(1_000_000);
    expect(healthcheck).not.toMatch(/node_modules\/(express|pino)\//);
  });

  it('runs the server from exactly those files: healthy by its HEALTHCHECK, the dashboard and the API reference served, stopped gracefully', async () => {
    const app = join(root, workdir);
    // Nothing above the image's folders may offer a node_modules either.
    for (let dir = app; ; dir = dirname(dir)) {
      expect(existsSync(join(dir, 'node_modules')) ? dir : null).toBeNull();
      if (dirname(dir) === dir) break;
    }
    // The image's ENV, its absolute paths inside the image; a free port instead of 8080.
    const imageEnv = Object.fromEntries(
      Object.entries(pairsOf(argsOf(runtime, 'ENV').join(' '))).map(([k, v]) => [
        k,
        v.startsWith('/') ? join(root, v) : v,
      ]),
    );
    const env = { PATH: process.env['PATH'] ?? '', HOME: app, ...imageEnv, PORT: '0', HOST: '127.0.0.1' };
    const cmd = JSON.parse(argsOf(runtime, 'CMD').at(-1)!) as string[];
    expect(cmd[0]).toBe('node');
    const child = spawn(process.execPath, cmd.slice(1), { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const seen = { text: '' };
    child.stdout.on('data', (chunk: Buffer) => (seen.text += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (seen.text += chunk.toString()));
    const exited = new Promise<number | null>((resolvePromise) => child.once('exit', (code) => resolvePromise(code)));
    try {
      const port = (await waitForOutput(child, /water-sandbox is running at http:\/\/localhost:(\d+)/, seen))[1]!;
      const url = `http://127.0.0.1:${port}`;

      const healthcheck = /CMD (\[.*\])$/.exec(argsOf(runtime, 'HEALTHCHECK').at(-1)!)![1]!;
      expect(await run(JSON.parse(healthcheck) as string[], { cwd: app, env: { ...env, PORT: port } })).toBe(0);
      expect(await (await fetch(`${url}/healthz`)).json()).toMatchObject({ status: 'ok', store: 'lowdb' });

      // Read beside the bundle: package.json (the version), the fixtures, the dashboard's and the API reference's files.
      expect(((await (await fetch(`${url}/healthz`)).json()) as { version: string }).version).toBe(
        (JSON.parse(await readFile('package.json', 'utf8')) as { version: string }).version,
      );
      expect((await fetch(`${url}/v1/locations`, { headers: bearer(DEMO_API_KEY) })).status).toBe(200);
      const docs = await (await fetch(`${url}/docs`)).text();
      for (const asset of [...docs.matchAll(/(?:src|href)="(\/docs\/assets\/[^"]+)"/g)].map((m) => m[1]!)) {
        expect([asset, (await fetch(`${url}${asset}`)).status]).toEqual([asset, 200]);
      }
      const { page } = await signInToDashboard(url);
      const dashboardAssets = [...page.matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)].map((m) => m[1]!);
      expect(dashboardAssets).toHaveLength(2);
      for (const asset of dashboardAssets)
        expect([asset, (await fetch(`${url}${asset}`)).status]).toEqual([asset, 200]);

      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 60_000);
});
