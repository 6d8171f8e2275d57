// `npm start`: builds what is out of date, then runs the sandbox in this process.
//
// Plain JavaScript, run before anything is compiled. With nothing changed since the last build
// it only compares file times (a few milliseconds) and loads dist/water-sandbox.js: the
// compiler is not started, since loading it alone took most of a second. Otherwise it runs the
// steps of `npm run build` (each skips what is up to date), saying what it does, since the
// first start of a fresh clone takes about half a minute. The server runs in this process
// (package.json passes it the V8 flags), so signals and exit codes are the server's own.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const DIST = join(root, 'dist');
const SERVER_BUNDLE = join(DIST, 'water-sandbox.js');
/** Written when a build of this script finished, with the time the build started. */
const STAMP = join(DIST, '.start-stamp');
/** What the build is made from: every source file, the compiler settings and the dependencies. */
const INPUTS = ['src', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
const OUTPUTS = [SERVER_BUNDLE, join(DIST, 'dashboard-assets', 'manifest.json')];

/** The newest modification time under `path` (ms), 0 when it does not exist. */
function newestMs(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMs(join(path, entry)));
  return newest;
}

/** Why a build is needed, or null when the last one is newer than every input. */
function staleness() {
  if (!OUTPUTS.every((file) => existsSync(file))) return 'first';
  if (!existsSync(STAMP)) return 'changed';
  const built = statSync(STAMP).mtimeMs;
  return INPUTS.some((input) => newestMs(join(root, input)) > built) ? 'changed' : null;
}

const say = (text) => process.stderr.write(`water-sandbox: ${text}\n`);

function run(what, args) {
  say(what);
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    say(
      `${what.replace(/\s*\(.*$/, '')} failed${result.status === null ? ` (${result.signal})` : ''}; the sandbox was not started`,
    );
    process.exit(result.status ?? 1);
  }
}

const reason = staleness();
if (reason !== null) {
  const startedMs = Date.now();
  const began = performance.now();
  say(
    reason === 'first'
      ? 'first start: compiling TypeScript into dist/ and bundling the dashboard and the server (about half a minute; later starts take under a second)'
      : 'sources changed since the last build: building again (a few seconds)',
  );
  run('compiling TypeScript (tsc -b tsconfig.build.json)', [
    join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
    '-b',
    'tsconfig.build.json',
  ]);
  run('bundling the dashboard', [join(DIST, 'tools', 'build-dashboard.js')]);
  run('bundling the server', [join(DIST, 'tools', 'build-server.js')]);
  // The build's start time: a file saved while it ran counts as changed at the next start.
  writeFileSync(STAMP, '');
  utimesSync(STAMP, startedMs / 1000, startedMs / 1000);
  say(`built in ${((performance.now() - began) / 1000).toFixed(1)} s; starting`);
}
await import(pathToFileURL(SERVER_BUNDLE).href);
