import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';

import { PACKAGE_ROOT } from '../core/package-info.js';
import { ALLOWED_LICENCES, licenceVerdict } from './licences.js';

/**
 * The third-party notices of what the build ships: written beside each bundle (the server's in
 * dist/, the dashboard's in dist/dashboard-assets/, the package's entry points' in dist/package/),
 * listing every npm package whose code esbuild put in it (read from esbuild's metafile, so exactly
 * those), with its version, its licence and the licence texts and notices it ships. The build
 * fails when one of them declares no licence, declares one that licences.ts does not allow, or
 * has no licence text (neither a file of its own nor one written down in WRITTEN_DOWN below).
 */
export const NOTICES_FILE = 'THIRD-PARTY-NOTICES.txt';

/**
 * Licence texts for packages whose npm tarball ships none (their repository has it, the package
 * not): the text, in licence-texts/, taken from where `source` says. Used only when the package
 * itself has no licence file.
 */
const NODE_REDIS = {
  file: 'node-redis.txt',
  source: 'LICENSE of the repository redis/node-redis, from which every one of these packages is published',
};
const WRITTEN_DOWN: Readonly<Record<string, { file: string; source: string }>> = Object.fromEntries([
  ...['redis', '@redis/client', '@redis/bloom', '@redis/json', '@redis/search', '@redis/time-series'].map(
    (name): [string, typeof NODE_REDIS] => [name, NODE_REDIS],
  ),
  [
    'cookie-signature',
    {
      file: 'cookie-signature-1.0.txt',
      source: 'the "License" section of the Readme.md that cookie-signature 1.0.x ships',
    },
  ],
]);
const WRITTEN_DOWN_DIR = join(PACKAGE_ROOT, 'src', 'tools', 'licence-texts');

/** A file of a package's own folder that carries its licence, or its notices (Apache-2.0 section 4(d)). */
const LICENCE_FILE = /^(licen[cs]e|copying)([.-].*)?$/i;
const NOTICE_FILE = /^notice([.-].*)?$/i;

export interface ShippedPackage {
  name: string;
  version: string;
  /** As its package.json declares it (`license`, or the old `licenses` list joined with OR); null when it declares none. */
  licence: string | null;
  /** Its folder, relative to the package root of water-sandbox (node_modules/...). */
  folder: string;
  repository: string | null;
  /** Which shipped files hold its code, as named in the notices. */
  shippedIn: string[];
  /** Its licence texts (the files it ships, or the text written down for it), then its notices (NOTICE, a shipped bundle's `*.LICENSE.txt`). */
  texts: { kind: 'licence' | 'notice'; title: string; text: string }[];
}

/** What a bundle of ours took from packages: the shipped file's name and esbuild's metafile inputs (paths relative to `workingDir`). */
export interface BundleInputs {
  shippedAs: string;
  inputs: Iterable<string>;
  workingDir?: string;
  /** Files of the packages shipped as they are (a copied asset's `*.LICENSE.txt`), whose text joins their package's notices. */
  extraNotices?: string[];
}

/** The package folder an input file belongs to: the innermost node_modules/<name> or node_modules/@scope/<name> on its path. */
export function packageFolderOf(path: string): string | null {
  if (path.startsWith('(disabled):')) return null;
  const match = /^(.*[\\/]node_modules[\\/](?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(path);
  return match?.[1] ?? null;
}

const readJson = (file: string): Record<string, unknown> =>
  JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;

function declaredLicence(pkg: Record<string, unknown>): string | null {
  const { license, licenses } = pkg;
  if (typeof license === 'string' && license.trim() !== '') return license.trim();
  if (typeof license === 'object' && license !== null && typeof (license as { type?: unknown }).type === 'string')
    return (license as { type: string }).type;
  if (Array.isArray(licenses)) {
    const types = licenses
      .map((l: unknown) => (l as { type?: unknown } | null)?.type)
      .filter((t) => typeof t === 'string');
    if (types.length === 1) return String(types[0]);
    if (types.length > 1) return `(${types.join(' OR ')})`;
  }
  return null;
}

function repositoryOf(pkg: Record<string, unknown>): string | null {
  const repository = pkg['repository'];
  const url = typeof repository === 'string' ? repository : (repository as { url?: unknown } | undefined)?.url;
  if (typeof url !== 'string') return null;
  if (/^[\w.-]+\/[\w.-]+$/.test(url)) return `https://github.com/${url}`;
  return url
    .replace(/^git\+/, '')
    .replace(/^git:\/\//, 'https://')
    .replace(/\.git$/, '');
}

function readPackage(folder: string): Omit<ShippedPackage, 'shippedIn'> {
  const pkg = readJson(join(folder, 'package.json'));
  const files = readdirSync(folder).sort();
  const licenceFiles = files.filter((f) => LICENCE_FILE.test(f));
  const noticeFiles = files.filter((f) => NOTICE_FILE.test(f));
  const name = String(pkg['name']);
  const texts: ShippedPackage['texts'] = licenceFiles.map((f) => ({
    kind: 'licence',
    title: f,
    text: readFileSync(join(folder, f), 'utf8'),
  }));
  const writtenDown = WRITTEN_DOWN[name];
  if (texts.length === 0 && writtenDown)
    texts.push({
      kind: 'licence',
      title: `licence text (the package ships none; from ${writtenDown.source})`,
      text: readFileSync(join(WRITTEN_DOWN_DIR, writtenDown.file), 'utf8'),
    });
  for (const f of noticeFiles) texts.push({ kind: 'notice', title: f, text: readFileSync(join(folder, f), 'utf8') });
  return {
    name,
    version: String(pkg['version']),
    licence: declaredLicence(pkg),
    folder: relative(PACKAGE_ROOT, folder),
    repository: repositoryOf(pkg),
    texts,
  };
}

/** Every package whose code is in the bundles, each once, sorted by name and version. */
export function shippedPackages(bundles: BundleInputs[]): ShippedPackage[] {
  // By name and version: two copies of one version (each dependent's own, in node_modules/<it>/node_modules) are one entry.
  const found = new Map<string, ShippedPackage>();
  const byFolder = new Map<string, ShippedPackage>();
  const packageAt = (folder: string, shippedAs: string): ShippedPackage => {
    let entry = byFolder.get(folder);
    if (!entry) {
      const read = readPackage(folder);
      const key = `${read.name}@${read.version}`;
      entry = found.get(key) ?? { ...read, shippedIn: [] };
      found.set(key, entry);
      byFolder.set(folder, entry);
    }
    if (!entry.shippedIn.includes(shippedAs)) entry.shippedIn.push(shippedAs);
    return entry;
  };
  for (const bundle of bundles) {
    for (const input of bundle.inputs) {
      const folder = packageFolderOf(resolve(bundle.workingDir ?? process.cwd(), input));
      if (folder !== null) packageAt(folder, bundle.shippedAs);
    }
    for (const file of bundle.extraNotices ?? []) {
      const folder = packageFolderOf(resolve(file));
      if (folder === null) throw new Error(`${file} is not a file of a package`);
      packageAt(folder, bundle.shippedAs).texts.push({
        kind: 'notice',
        title: `${basename(file)} (the notices of the packages inside ${basename(file).replace(/\.LICENSE\.txt$/, '')})`,
        text: readFileSync(file, 'utf8'),
      });
    }
  }
  return [...found.values()].sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version));
}

/** Why each package may not be shipped: no licence, one not on the list, no licence text. Empty when all may. */
export function licenceProblems(packages: ShippedPackage[]): string[] {
  const problems: string[] = [];
  for (const p of packages) {
    const which = `${p.name}@${p.version} (${p.folder})`;
    if (p.licence === null) problems.push(`${which} declares no licence in its package.json`);
    else {
      const verdict = licenceVerdict(p.licence);
      if (!verdict.allowed) problems.push(`${which}: ${verdict.reason} (src/tools/licences.ts)`);
    }
    if (!p.texts.some((t) => t.kind === 'licence'))
      problems.push(
        `${which} ships no licence text, and none is written down for it (src/tools/third-party-notices.ts, WRITTEN_DOWN)`,
      );
  }
  return problems;
}

const RULE = '='.repeat(80);

/** The notices file's text: a summary table, then each package with its licence texts (a text identical to one above is named, not repeated). */
export function renderNotices(packages: ShippedPackage[], about: { product: string; what: string }): string {
  const widths = [
    Math.max(7, ...packages.map((p) => p.name.length)),
    Math.max(7, ...packages.map((p) => p.version.length)),
    Math.max(7, ...packages.map((p) => (p.licence ?? '').length)),
  ];
  const row = (cells: string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const lines = [
    `Third-party software in ${about.product}`,
    '',
    `In ${about.what}.`,
    '',
    'Made by the build from what esbuild put in the bundles: do not edit. Each package below is',
    'from the npm registry, with its version, its licence as its package.json declares it, and',
    'the licence texts and notices it ships. Every licence is one that the list in',
    "src/tools/licences.ts of the sandbox's repository allows, with the reason.",
    '',
  ];
  if (packages.length === 0) lines.push('No third-party package is bundled into these files.', '');
  else {
    lines.push(row(['Package', 'Version', 'Licence', 'In']));
    for (const p of packages) lines.push(row([p.name, p.version, p.licence ?? '(none)', p.shippedIn.join(', ')]));
    lines.push('');
  }
  const seen = new Map<string, string>();
  for (const p of packages) {
    lines.push(RULE, `${p.name} ${p.version}`, `Licence: ${p.licence ?? '(none)'}`, `In: ${p.shippedIn.join(', ')}`);
    if (p.repository !== null) lines.push(`Repository: ${p.repository}`);
    for (const t of p.texts) {
      const hash = createHash('sha256').update(t.text.trim()).digest('hex');
      const first = seen.get(hash);
      if (first !== undefined) {
        lines.push('', `--- ${t.title.replace(/ \(.*$/, '')}: the same text as ${first} above`);
        continue;
      }
      seen.set(hash, `the ${t.title.replace(/ \(.*$/, '')} of ${p.name} ${p.version}`);
      lines.push('', `--- ${t.title}`, '', t.text.trimEnd());
    }
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Checks the packages of `bundles` and writes their notices to `file` (renamed into place, so a
 * reader never sees half of it). Throws, naming every problem, when one may not be shipped.
 */
export async function writeThirdPartyNotices(
  file: string,
  bundles: BundleInputs[],
  what: string,
): Promise<ShippedPackage[]> {
  const packages = shippedPackages(bundles);
  const problems = licenceProblems(packages);
  if (problems.length > 0)
    throw new Error(
      `${relative(process.cwd(), file)}: cannot ship ${problems.length === 1 ? 'a package' : `${problems.length} packages`} under Apache-2.0 as they are:\n${problems.map((p) => `  - ${p}`).join('\n')}\nAllowed licences: ${Object.keys(ALLOWED_LICENCES).join(', ')}.`,
    );
  const version = (readJson(join(PACKAGE_ROOT, 'package.json')) as { version: string }).version;
  await mkdir(dirname(file), { recursive: true });
  const staging = `${file}.${process.pid}.tmp`;
  await writeFile(staging, renderNotices(packages, { product: `water-sandbox ${version}`, what }));
  await rename(staging, file);
  return packages;
}
