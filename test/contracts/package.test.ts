import { execFile, spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

import { buildDashboardFiles } from '../../src/tools/dashboard-files.js';
import { bundlePackageEntries, writePackageTypes } from '../../src/tools/package-files.js';
import { buildServerFiles } from '../../src/tools/server-files.js';

/**
 * `npm pack` as a partner gets it: the package's files (package.json `files`) built from src/
 * the way `npm run build` and `npm run build:package` build them (in a copy, so the clone's dist/
 * is left alone), packed without scripts, installed into an empty project with `--offline` and an
 * empty cache (so nothing but the tarball can be installed), and run from there: `npx
 * water-sandbox --version`, the sandbox on a free port, a client command, both entry points
 * imported, and a TypeScript test of the partner's compiled against the declarations.
 */

const run = promisify(execFile);
const ROOT = resolve('.');
const pkg = JSON.parse(await readFile('package.json', 'utf8')) as { name: string; version: string; files: string[] };

let work: string;
let app: string;
/** npm and node with nothing of this process's environment (jest's NODE_OPTIONS), an empty npm cache. */
let env: Record<string, string>;

const npx = (args: string[]): Promise<{ stdout: string; stderr: string }> =>
  run('npx', ['--offline', ...args], { cwd: app, env });

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'water-sandbox-pack-'));
  const stage = join(work, 'package');
  app = join(work, 'app');
  env = {
    PATH: process.env['PATH'] ?? '',
    HOME: work,
    npm_config_cache: join(work, 'empty-cache'),
    npm_config_update_notifier: 'false',
  };
  await mkdir(stage);
  // What package.json's `files` names outside dist/ (which the build makes), with what npm always packs.
  for (const file of ['package.json', 'README.md', ...pkg.files.filter((f) => !f.startsWith('dist/'))])
    await cp(file, join(stage, file), { recursive: true });
  const dist = join(stage, 'dist');
  await buildServerFiles({ main: 'src/main.ts', healthcheck: 'src/healthcheck.ts' }, dist);
  await buildDashboardFiles({ outDir: join(dist, 'dashboard-assets') });
  await bundlePackageEntries((entry) => join(ROOT, 'src', entry, 'index.ts'), join(dist, 'package'));
  await writePackageTypes(join(dist, 'package', 'types'));
  await run('npm', ['pack', '--ignore-scripts', '--pack-destination', work], { cwd: stage, env });

  await mkdir(app);
  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'partner-app', private: true, type: 'module' }));
  await run(
    'npm',
    ['install', '--save-dev', '--offline', '--no-audit', '--no-fund', join(work, `${pkg.name}-${pkg.version}.tgz`)],
    { cwd: app, env },
  );
}, 300_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the npm package', () => {
  it('holds the bundles, the entry points, their declarations and the data, and no source or dependency to fetch', async () => {
    const { stdout } = await run('tar', ['tzf', join(work, `${pkg.name}-${pkg.version}.tgz`)]);
    const files = stdout
      .trim()
      .split('\n')
      .map((f) => f.replace(/^package\//, ''));
    for (const file of [
      'package.json',
      'README.md',
      'CHANGELOG.md',
      'LICENSE',
      'NOTICE',
      'dist/THIRD-PARTY-NOTICES.txt',
      'dist/dashboard-assets/THIRD-PARTY-NOTICES.txt',
      'dist/package/THIRD-PARTY-NOTICES.txt',
      'dist/water-sandbox.js',
      'dist/package/client.js',
      'dist/package/testcontainers.js',
      'dist/package/types/client/index.d.ts',
      'dist/package/types/client/types.d.ts',
      'dist/package/types/testcontainers/index.d.ts',
      'dist/docs-assets/swagger-ui-bundle.js',
      'fixtures/default.json',
      'scenarios/away-leak.json',
    ]) {
      expect(files).toContain(file);
    }
    // Sources only as documentation: the example of docs/ci.md.
    expect(
      files.filter(
        (f) =>
          /^(src|test|bench|mutation)\/|node_modules|\.ts$/.test(f) &&
          !f.endsWith('.d.ts') &&
          !f.startsWith('examples/'),
      ),
    ).toEqual([]);
    const installed = JSON.parse(await readFile(join(app, 'node_modules', pkg.name, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(installed['license']).toBe('Apache-2.0');
    expect(installed['dependencies']).toBeUndefined();
    expect(installed['peerDependenciesMeta']).toEqual({ testcontainers: { optional: true } });
    // The tarball alone: nothing else was installed.
    expect((await readdir(join(app, 'node_modules'))).filter((name) => !name.startsWith('.')).sort()).toEqual([
      pkg.name,
    ]);
  });

  it('carries the Apache-2.0 licence as written, and notices that list every package each bundle holds, with its licence text', async () => {
    const installed = join(app, 'node_modules', pkg.name);
    expect(await readFile(join(installed, 'LICENSE'), 'utf8')).toBe(await readFile('LICENSE', 'utf8'));
    expect(await readFile(join(installed, 'NOTICE'), 'utf8')).toMatch(/^water-sandbox\nCopyright \d{4} /);

    /** name@version of each row of a notices file's table. */
    const listed = async (file: string): Promise<string[]> => {
      const text = await readFile(join(installed, file), 'utf8');
      const table = text.slice(text.indexOf('\nPackage '), text.indexOf('\n====='));
      return table
        .split('\n')
        .slice(2)
        .filter((line) => line !== '')
        .map((line) => line.split(/ +/).slice(0, 2).join('@'));
    };
    /**
     * What a bundle holds, read from the bundle itself, not from the build's metafile: esbuild
     * heads each module with a comment naming its path (node_modules/...), and a minified bundle's
     * source map lists its sources. Each path's innermost package, as name@version.
     */
    const heldBy = async (paths: string[]): Promise<string[]> => {
      const folders = new Set(paths.flatMap((path) => /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1] ?? []));
      const held = new Set<string>();
      for (const folder of folders) {
        const own = JSON.parse(
          await readFile(join(ROOT, folder.replace(/^.*?node_modules\//, 'node_modules/'), 'package.json'), 'utf8'),
        ) as { name: string; version: string };
        held.add(`${own.name}@${own.version}`);
      }
      return [...held].sort();
    };
    const commentPaths = async (file: string): Promise<string[]> =>
      [...(await readFile(join(installed, file), 'utf8')).matchAll(/^\/\/ (\S*node_modules\/\S+)$/gm)].map(
        (m) => m[1]!,
      );

    const server = await heldBy([
      ...(await commentPaths('dist/water-sandbox.js')),
      ...(await commentPaths('dist/water-sandbox-healthcheck.js').catch(() => [])),
    ]);
    expect(server.length).toBeGreaterThan(50);
    const swaggerUi = JSON.parse(await readFile('node_modules/swagger-ui-dist/package.json', 'utf8')) as {
      version: string;
    };
    expect((await listed('dist/THIRD-PARTY-NOTICES.txt')).sort()).toEqual(
      [...server, `swagger-ui-dist@${swaggerUi.version}`].sort(),
    );

    const manifest = JSON.parse(await readFile(join(installed, 'dist/dashboard-assets/manifest.json'), 'utf8')) as {
      script: string;
    };
    const map = JSON.parse(
      await readFile(join(installed, 'dist/dashboard-assets', `${manifest.script}.map`), 'utf8'),
    ) as {
      sources: string[];
    };
    const dashboard = await heldBy(map.sources);
    expect(dashboard).toEqual([expect.stringMatching(/^uplot@/)]);
    expect(await listed('dist/dashboard-assets/THIRD-PARTY-NOTICES.txt')).toEqual(dashboard);

    const entryPoints = (await readdir(join(installed, 'dist/package'))).filter((f) => f.endsWith('.js'));
    expect(await heldBy((await Promise.all(entryPoints.map((f) => commentPaths(`dist/package/${f}`)))).flat())).toEqual(
      [],
    );
    expect(await readFile(join(installed, 'dist/package/THIRD-PARTY-NOTICES.txt'), 'utf8')).toContain(
      'No third-party package is bundled into these files.',
    );

    // Each listed package with its licence and a text: express's own, as its package ships it.
    const notices = await readFile(join(installed, 'dist/THIRD-PARTY-NOTICES.txt'), 'utf8');
    const express = JSON.parse(await readFile('node_modules/express/package.json', 'utf8')) as { version: string };
    expect(notices).toContain(
      `\nexpress ${express.version}\nLicence: MIT\nIn: water-sandbox.js\nRepository: https://github.com/expressjs/express\n\n--- LICENSE\n\n${(await readFile('node_modules/express/LICENSE', 'utf8')).trimEnd()}\n`,
    );
  });

  it('runs npx water-sandbox: --version, the sandbox on a free port, a client command against it', async () => {
    expect((await npx(['water-sandbox', '--version'])).stdout.trim()).toBe(pkg.version);
    // In a process group of its own: npx does not pass a signal on to the command it runs.
    const server = spawn('npx', ['--offline', 'water-sandbox', '--port', '0', '--data-dir', ':memory:'], {
      cwd: app,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const exited = new Promise((resolveExit) => server.once('exit', resolveExit));
    let output = '';
    server.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const url = await new Promise<string>((resolveUrl, reject) => {
        const look = (): void => {
          const match = /water-sandbox is running at (http:\/\/localhost:\d+)/.exec(output);
          if (match) resolveUrl(match[1]!);
        };
        server.stdout.on('data', look);
        server.stderr.on('data', look);
        server.once('exit', (code) => reject(new Error(`the sandbox exited (${String(code)}):\n${output}`)));
      });
      expect(await (await fetch(`${url}/healthz`)).json()).toEqual({
        status: 'ok',
        version: pkg.version,
        store: 'memory',
      });
      expect((await fetch(`${url}/docs`)).status).toBe(200);
      const { stdout } = await npx(['water-sandbox', 'accounts', 'create', '--format', 'env', '--sandbox', url]);
      expect(stdout).toMatch(/^WATER_API_KEY=\S+$/m);

      // water-sandbox/client, imported by name from the partner's project.
      const script = `import { WaterSandbox } from 'water-sandbox/client';
        const account = await new WaterSandbox(${JSON.stringify(url)}).createAccount();
        const alert = await account.alerts.start(account.locations[0].locationId, 'lowLeak');
        console.log(JSON.stringify({ version: (await new WaterSandbox(${JSON.stringify(url)}).health()).version, alert: alert.type }));`;
      const client = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: app, env });
      expect(JSON.parse(client.stdout)).toEqual({ version: pkg.version, alert: 'lowLeak' });
    } finally {
      process.kill(-server.pid!, 'SIGTERM');
      await exited;
    }
  }, 60_000);

  it('gives water-sandbox/testcontainers to a project that has testcontainers, and declarations a TypeScript test compiles against', async () => {
    // The partner's own testcontainers (an optional peer dependency): this clone's.
    await symlink(join(ROOT, 'node_modules', 'testcontainers'), join(app, 'node_modules', 'testcontainers'), 'dir');
    const script = `import { GenericContainer } from 'testcontainers';
      import { WaterSandboxContainer, SANDBOX_PORT } from 'water-sandbox/testcontainers';
      console.log(JSON.stringify({ extendsGeneric: new WaterSandboxContainer('water-sandbox') instanceof GenericContainer, port: SANDBOX_PORT }));`;
    const imported = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: app, env });
    expect(JSON.parse(imported.stdout)).toEqual({ extendsGeneric: true, port: 8080 });

    await writeFile(
      join(app, 'sandbox.test.ts'),
      `import { WaterSandbox, ReadinessError, type Delivery, type ReadinessReport } from 'water-sandbox/client';
import { WaterSandboxContainer } from 'water-sandbox/testcontainers';

export async function partnerTest(): Promise<string> {
  const container = await new WaterSandboxContainer('water-sandbox:${pkg.version}').withHostReceiver(3000).start();
  const account = await container.createAccount();
  const endpoint: string = await account.receiverEndpoint('/webhooks');
  await account.subscriptions.create(account.locations[0]!.locationId, endpoint);
  const started = await account.alerts.start(account.locations[0]!.locationId, 'highLeak', { peakValue: 6 });
  const delivery: Delivery = await account.deliveries.waitFor((d) => d.kind === 'alert' && d.state === 'delivered', { timeoutMs: 5000 });
  // @ts-expect-error: not an alert type
  await account.alerts.start(account.locations[0]!.locationId, 'flood');
  const report: ReadinessReport = await account.readiness.assertReady({ except: ['oauth.token-exchange'], waitSeconds: 10 });
  const error = new ReadinessError(report, report.checks);
  await container.stop();
  return [started.alertId, delivery.deliveryId, error.checks[0]?.status, new WaterSandbox(container.getUrl()).url].join();
}
`,
    );
    await writeFile(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
          typeRoots: [join(ROOT, 'node_modules', '@types')],
        },
        files: ['sandbox.test.ts'],
      }),
    );
    const tsc = await run(
      process.execPath,
      [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'],
      { cwd: app, env },
    ).catch((error: unknown) => error as { stdout: string });
    expect(tsc.stdout).toBe('');
  }, 60_000);
});
