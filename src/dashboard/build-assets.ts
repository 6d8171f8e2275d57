import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

import * as esbuild from 'esbuild';

import { PACKAGE_ROOT } from '../core/package-info.js';
import { ASSETS_DIR, ASSETS_SUBDIR, MANIFEST_FILE, type AssetManifest } from './assets.js';

/**
 * Bundles the pages' browser code (src/dashboard/client and src/demo/client, TypeScript, with uPlot and the CSS)
 * into content-hashed files in dist/dashboard-assets, with a manifest the server reads. A
 * development-time module: esbuild is a dev dependency, and the runtime only reads the output.
 * Run by `npm run build` (and so `npm start` and the Docker build) and by the tests' global set-up.
 */

const ENTRY = 'src/dashboard/client/main.ts';
/** The presenter view's page (GET /demo), bundled beside the dashboard's: it shares its modules and its assets route. */
const DEMO_ENTRY = 'src/demo/client/main.ts';
/** Bump when the settings below change, so an older build is not taken as up to date. */
const SETTINGS_VERSION = 2;

export interface BuildResult {
  /** True when the existing build was made from the same inputs and nothing was written. */
  skipped: boolean;
  manifest: AssetManifest;
  outDir: string;
}

const sha256 = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

async function readManifest(outDir: string): Promise<AssetManifest | null> {
  try {
    return JSON.parse(await readFile(join(outDir, MANIFEST_FILE), 'utf8')) as AssetManifest;
  } catch {
    return null;
  }
}

/** Whether the build in outDir was made by this builder from inputs that have not changed since. */
async function upToDate(root: string, outDir: string, manifest: AssetManifest, builder: string): Promise<boolean> {
  if (manifest.fingerprint.builder !== builder) return false;
  if (!manifest.files.every((name) => existsSync(join(outDir, name)))) return false;
  for (const [path, hash] of Object.entries(manifest.fingerprint.inputs)) {
    const current = await readFile(join(root, path)).catch(() => null);
    if (current === null || sha256(current) !== hash) return false;
  }
  return true;
}

/**
 * Builds the bundle unless the one in outDir is up to date (its manifest records a hash of every
 * file that went into it, read from esbuild's metafile, so any change to an input, uPlot's
 * included, rebuilds it). Files appear atomically: each is renamed into place, the manifest last,
 * so a server starting meanwhile reads the old build or the new one, never half of one.
 */
export async function buildDashboardAssets(
  options: { root?: string; outDir?: string; force?: boolean } = {},
): Promise<BuildResult> {
  const root = options.root ?? PACKAGE_ROOT;
  const outDir = options.outDir ?? (options.root === undefined ? ASSETS_DIR : join(root, ASSETS_SUBDIR));
  const builder = `esbuild ${esbuild.version} settings ${SETTINGS_VERSION}`;
  const previous = await readManifest(outDir);
  if (!options.force && previous && (await upToDate(root, outDir, previous, builder)))
    return { skipped: true, manifest: previous, outDir };

  await mkdir(outDir, { recursive: true });
  const staging = await mkdtemp(join(outDir, '.building-'));
  try {
    const result = await esbuild.build({
      absWorkingDir: root,
      entryPoints: { app: ENTRY, demo: DEMO_ENTRY },
      bundle: true,
      format: 'iife',
      platform: 'browser',
      target: ['es2022', 'chrome109', 'firefox115', 'safari16'],
      minify: true,
      sourcemap: 'linked',
      entryNames: '[name].[hash]',
      outdir: staging,
      metafile: true,
      logLevel: 'silent',
      legalComments: 'eof',
    });
    const outputs = Object.keys(result.metafile.outputs).map((path) => relative(staging, join(root, path)));
    const entryFiles = (entry: string): { script: string; style: string } => {
      const script = outputs.find((name) => name.startsWith(`${entry}.`) && name.endsWith('.js'));
      const style = outputs.find((name) => name.startsWith(`${entry}.`) && name.endsWith('.css'));
      if (!script || !style) throw new Error(`the ${entry} bundle has no script or style sheet: ${outputs.join(', ')}`);
      return { script, style };
    };
    const { script, style } = entryFiles('app');
    const demo = entryFiles('demo');
    const inputs: Record<string, string> = {};
    for (const path of Object.keys(result.metafile.inputs).sort())
      inputs[path] = sha256(await readFile(join(root, path)));
    const manifest: AssetManifest = { script, style, demo, files: outputs.sort(), fingerprint: { builder, inputs } };

    for (const name of outputs) await rename(join(staging, name), join(outDir, name));
    await writeFile(join(staging, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
    await rename(join(staging, MANIFEST_FILE), join(outDir, MANIFEST_FILE));
    // Older builds' files go; a server already running keeps its copy in memory.
    const keep = new Set([...outputs, MANIFEST_FILE]);
    for (const name of await readdir(outDir))
      if (!keep.has(name) && !name.startsWith('.building-')) await rm(join(outDir, name), { force: true });
    return { skipped: false, manifest, outDir };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
