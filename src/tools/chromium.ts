import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import chromium from '@sparticuz/chromium';
import { chromium as playwright, type BrowserContext } from 'playwright-core';

/**
 * The browser tests (and `npm run screenshots`, which makes the docs' pictures) need nothing
 * installed on the machine: the Chromium binary comes from the `@sparticuz/chromium` dev dependency. Set `CHROMIUM_PATH` to drive an installed Chromium
 * instead (for example Debian's: `CHROMIUM_PATH=/usr/bin/chromium npm test`); it is used only
 * when set and not empty, and a path that does not exist fails the tests rather than skipping them.
 */
const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] || undefined;

/**
 * Flags this machine needs: no sandbox (root, containers), no GPU, and no connection of its own
 * (the network is closed: Chromium's background, update and sync requests are refused).
 */
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** `chromium.args` is made for serverless hosts; these two would let a page do what a real browser refuses. */
const WEAKENING = new Set(['--disable-web-security', '--allow-running-insecure-content']);

const run = promisify(execFile);

/**
 * Run in a child process: the package's own unpacking (chromium, fonts, swiftshader), plus the
 * NSS libraries it ships for Amazon Linux, which it unpacks only there.
 */
const UNPACK = `
const [entry, libraries] = process.argv.slice(1);
const { default: chromium } = await import(entry);
const { inflate } = await import(new URL('./lambdafs.js', entry).href);
await chromium.executablePath();
await inflate(libraries);
`;

/**
 * The npm Chromium, unpacked once per version into its own directory under the temp dir and
 * reused by every test file, worker and run afterwards; returns that directory.
 *
 * `chromium.executablePath()` unpacks to `<tmpdir>/chromium` and takes any file already there as
 * the binary, even a half-written one: jest workers starting together, a run killed while
 * unpacking, or another project's version would break the launch. So the package unpacks in a
 * child process whose TMPDIR is a private staging directory, which is then renamed into place:
 * the rename is atomic, the directory exists only complete, and when two workers race the
 * loser throws its copy away and uses the winner's.
 */
async function unpackedChromium(): Promise<string> {
  const entry = import.meta.resolve('@sparticuz/chromium');
  let root = dirname(fileURLToPath(entry));
  for (;;) {
    const manifest = join(root, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === '@sparticuz/chromium'
    )
      break;
    if (dirname(root) === root) throw new Error(`No package.json of @sparticuz/chromium above ${entry}`);
    root = dirname(root);
  }
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const dir = join(tmpdir(), `water-sandbox-chromium-${version}`);
  const binary = join(dir, 'chromium');
  if (existsSync(binary)) return dir;

  const staging = mkdtempSync(`${dir}.unpacking-`);
  try {
    await run(process.execPath, ['--input-type=module', '--eval', UNPACK, entry, join(root, 'bin', 'al2023.tar.br')], {
      env: { ...process.env, TMPDIR: staging },
    });
    // The package's fonts.conf names /tmp/fonts; this one names where its fonts are here.
    writeFileSync(
      join(staging, 'fonts.conf'),
      `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>${join(dir, 'fonts')}</dir>\n  <cachedir>${join(dir, 'fonts-cache')}</cachedir>\n</fontconfig>\n`,
    );
    try {
      renameSync(staging, dir);
    } catch (error) {
      if (!existsSync(binary)) throw error; // not a lost race
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return dir;
}

/**
 * What a machine with only Node and npm (a slim container) lacks for the npm Chromium, taken from
 * the package and only when missing, so a machine's own always come first: the NSS libraries
 * Chromium links (the package's are the Amazon Linux 2023 build, which needs glibc 2.34), and a
 * font configuration (without any font the pages never finish laying out).
 */
async function environmentFor(dir: string): Promise<Record<string, string | undefined>> {
  const env = { ...process.env };
  const linked = await run(join(dir, 'chromium'), ['--version']).then(
    () => true,
    (error: unknown) =>
      !String((error as { stderr?: unknown }).stderr).includes('error while loading shared libraries'),
  );
  if (!linked) env['LD_LIBRARY_PATH'] = [join(dir, 'al2023', 'lib'), env['LD_LIBRARY_PATH']].filter(Boolean).join(':');
  if (!existsSync('/etc/fonts/fonts.conf') && !env['FONTCONFIG_FILE'] && !env['FONTCONFIG_PATH'])
    env['FONTCONFIG_FILE'] = join(dir, 'fonts.conf');
  return env;
}

type Launch = { path: string; args: string[]; env: Record<string, string | undefined> };
let toLaunch: Promise<Launch> | undefined;

/** Which Chromium to drive, its flags and environment; resolved once per process (jest gives each test file its own modules). */
function browserToLaunch(): Promise<Launch> {
  toLaunch ??= (async () => {
    if (CHROMIUM_PATH !== undefined) {
      if (!existsSync(CHROMIUM_PATH)) throw new Error(`CHROMIUM_PATH is set to ${CHROMIUM_PATH}, which does not exist`);
      return { path: CHROMIUM_PATH, args: FLAGS, env: process.env };
    }
    const dir = await unpackedChromium();
    const args = [...chromium.args.filter((arg) => !WEAKENING.has(arg)), ...FLAGS];
    return { path: join(dir, 'chromium'), args, env: await environmentFor(dir) };
  })();
  return toLaunch;
}

/** How the browser is told its languages. */
export interface BrowserLocale {
  /** Playwright's `locale` (navigator.language, Accept-Language, Intl's default); null leaves it to Chromium (default: 'en-US'). */
  locale?: string | null;
  /** The browser process's environment on top of this one's: Chromium takes its language from LANG (C.UTF-8 gives `en-US@posix`). */
  env?: Record<string, string>;
  /** Chromium's own flags, such as `--lang=C`. */
  args?: string[];
  /** What navigator.languages and navigator.language answer, set before any script of a page: for lists no option can make (an empty one). */
  languages?: { languages: string[]; language: string };
}

/**
 * Headless Chromium with a fresh context (its own cookies and storage), in US English unless
 * told otherwise (the pages work in any locale; the tests' expected texts are in English).
 */
export async function launchBrowser(
  viewport?: { width: number; height: number },
  options: { timezoneId?: string } & BrowserLocale = {},
): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const { locale = 'en-US', env: extraEnv = {}, args: extraArgs = [], languages, ...contextOptions } = options;
  const { path, args, env } = await browserToLaunch();
  const browser = await playwright.launch({
    executablePath: path,
    args: [...args, ...extraArgs],
    env: { ...env, ...extraEnv },
    headless: true,
  });
  try {
    const context = await browser.newContext({
      ...(locale === null ? {} : { locale }),
      ...(viewport ? { viewport } : {}),
      ...contextOptions,
    });
    if (languages) {
      await context.addInitScript(
        `Object.defineProperty(Navigator.prototype, 'languages', { get: () => ${JSON.stringify(languages.languages)}, configurable: true });
         Object.defineProperty(Navigator.prototype, 'language', { get: () => ${JSON.stringify(languages.language)}, configurable: true });`,
      );
    }
    return { context, close: () => browser.close() };
  } catch (error) {
    await browser.close();
    throw error;
  }
}
