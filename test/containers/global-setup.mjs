// Once before the container suites: an image of the Dockerfile's runtime stage, from the files
// `npm run build` made (the test:containers script builds first), tagged
// water-sandbox-test:<version>, its name left in WATER_SANDBOX_IMAGE for the suites.
//
// The Dockerfile's runtime stage is used as it is; only its build stage is replaced by the files
// already built here (the build stage's `npm ci` in a container would take minutes). Its base,
// node:24-bookworm-slim, is used when the engine has it. Otherwise (no registry to pull from, as
// on the build machines) a STAND-IN is made from this machine's own node: a scratch image with the
// node binary, the libraries `ldd` lists, a shell and the two commands the runtime stage runs,
// and a `node` user. So the image here runs this machine's Node (20), not the image's 24; what is
// checked is the runtime stage: its files, user, ports, environment, labels and command.
//
// The engine's command line: CONTAINER_CLI, else podman when installed, else docker. With podman
// and buildah, images are built with --format docker (their default OCI format drops HEALTHCHECK).
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const BASE = 'node:24-bookworm-slim';

const which = (name) => spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();

function engineCli() {
  if (process.env.CONTAINER_CLI) return process.env.CONTAINER_CLI;
  if (which('podman')) return 'podman';
  if (which('docker')) return 'docker';
  throw new Error('npm run test:containers needs a container engine: podman or docker (set CONTAINER_CLI to choose)');
}

function run(cli, args, options = {}) {
  const result = spawnSync(cli, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  if (result.status !== 0)
    throw new Error(
      `${cli} ${args.join(' ')} failed (${result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`,
    );
  return result.stdout;
}

const hasImage = (cli, image) => spawnSync(cli, ['image', 'inspect', image], { stdio: 'ignore' }).status === 0;

/** `path` and the libraries `ldd` lists for it, copied into `rootfs` at the same paths. */
function copyWithLibraries(path, rootfs, as = path) {
  mkdirSync(join(rootfs, dirname(as)), { recursive: true });
  // copyFileSync of the resolved file, not cpSync with dereference: Node 24's cpSync takes a
  // symbolic link to a file (libstdc++.so.6) for a folder.
  copyFileSync(realpathSync(path), join(rootfs, as));
  const ldd = spawnSync('ldd', [path], { encoding: 'utf8' }).stdout;
  for (const lib of ldd.matchAll(/(\/\S+) \(0x/g)) {
    if (existsSync(join(rootfs, lib[1]))) continue;
    mkdirSync(join(rootfs, dirname(lib[1])), { recursive: true });
    copyFileSync(realpathSync(lib[1]), join(rootfs, lib[1]));
  }
}

/** The stand-in base: this machine's node, a shell, mkdir and chown, a node user (uid 1000). */
function standInBase(cli, work) {
  const tag = `localhost/water-sandbox-stand-in-base:node-${process.version}`;
  if (hasImage(cli, tag)) return tag;
  const rootfs = join(work, 'base', 'rootfs');
  copyWithLibraries(process.execPath, rootfs, '/usr/local/bin/node');
  copyWithLibraries(which('sh'), rootfs, '/bin/sh');
  for (const command of ['mkdir', 'chown']) copyWithLibraries(which(command), rootfs, `/bin/${command}`);
  mkdirSync(join(rootfs, 'etc'), { recursive: true });
  mkdirSync(join(rootfs, 'tmp'), { recursive: true, mode: 0o1777 });
  mkdirSync(join(rootfs, 'home', 'node'), { recursive: true });
  writeFileSync(join(rootfs, 'etc', 'passwd'), 'root:x:0:0:root:/root:/bin/sh\nnode:x:1000:1000::/home/node:/bin/sh\n');
  writeFileSync(join(rootfs, 'etc', 'group'), 'root:x:0:\nnode:x:1000:\n');
  writeFileSync(
    join(work, 'base', 'Containerfile'),
    'FROM scratch\nCOPY rootfs/ /\nENV PATH=/usr/local/bin:/usr/bin:/bin\nRUN chown -R 1000:1000 /home/node\nCMD ["node"]\n',
  );
  run(cli, ['build', ...formatFlags(cli), '-t', tag, join(work, 'base')], { stdio: ['ignore', 'pipe', 'pipe'] });
  return tag;
}

const formatFlags = (cli) => (/podman|buildah/.test(cli) ? ['--format', 'docker'] : []);

/** The Dockerfile with its build stage replaced by the built files, its runtime stage as it is (on `base`). */
function runtimeContainerfile(base) {
  const text = readFileSync(join(root, 'Dockerfile'), 'utf8');
  const lines = text.split('\n');
  const runtimeFrom = lines.findLastIndex((line) => /^FROM\s/i.test(line));
  const runtime = lines.slice(runtimeFrom);
  if (!/^FROM node:24-bookworm-slim\s*$/.test(runtime[0]))
    throw new Error(`the runtime stage starts with ${runtime[0]}, not FROM ${BASE}`);
  runtime[0] = `FROM ${base}`;
  return ['FROM scratch AS build', 'COPY dist/ /app/dist/', '', ...runtime].join('\n');
}

export default async function globalSetup() {
  const cli = engineCli();
  const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
  for (const file of [
    'dist/water-sandbox.js',
    'dist/water-sandbox-healthcheck.js',
    'dist/dashboard-assets/manifest.json',
    'dist/docs-assets',
  ]) {
    if (!existsSync(join(root, file)))
      throw new Error(`${file} is missing: npm run test:containers builds first (npm run build)`);
  }
  const work = mkdtempSync(join(tmpdir(), 'water-sandbox-image-'));
  try {
    const base = hasImage(cli, BASE) ? BASE : standInBase(cli, work);
    const context = join(work, 'context');
    for (const path of [
      'package.json',
      'LICENSE',
      'NOTICE',
      'dist/THIRD-PARTY-NOTICES.txt',
      'fixtures',
      'scenarios',
      'dist/water-sandbox.js',
      'dist/water-sandbox-healthcheck.js',
      'dist/dashboard-assets',
      'dist/docs-assets',
    ]) {
      cpSync(join(root, path), join(context, path), { recursive: true });
    }
    writeFileSync(join(context, 'Containerfile'), runtimeContainerfile(base));
    const tag = `localhost/water-sandbox-test:${version}`;
    const started = performance.now();
    run(cli, ['build', ...formatFlags(cli), '-t', tag, '-f', join(context, 'Containerfile'), context], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const testcontainers = JSON.parse(
      readFileSync(join(root, 'node_modules', 'testcontainers', 'package.json'), 'utf8'),
    ).version;
    process.stdout.write(
      `\nimage ${tag} built with ${cli} on ${base} in ${((performance.now() - started) / 1000).toFixed(1)} s; the suite runs testcontainers ${testcontainers} on Node ${process.version}\n`,
    );
    process.env.WATER_SANDBOX_IMAGE = tag;
    process.env.WATER_SANDBOX_IMAGE_BASE = base;
    process.env.CONTAINER_CLI = cli;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
