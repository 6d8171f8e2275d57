import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import chromium from '@sparticuz/chromium';
import { chromium as playwright, type BrowserContext } from 'playwright-core';

/**
 * The browser tests need nothing installed on the machine: the Chromium binary comes from the
 * `@sparticuz/chromium` dev dependency. Set `CHROMIUM_PATH` to drive an installed Chromium
 * instead (for example Debian's: `CHROMIUM_PATH=/usr/bin/chromium npm test`); it is used only
 * when set and not empty, and a path that does not exist fails the tests rather than skipping them.
 */
const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] || undefined;

/**
 * Flags this machine needs: no sandbox (root, containers), no GPU, and no connection of its own
 * (the network is closed: Chromium's background, update and sync requests are refused).
 */
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** `chromium.args` is made for serverless hosts; these two would let a page do what a real browser refuses. */
const WEAKENING = new Set(['--disable-web-security', '--allow-running-insecure-content']);

const run = promisify(execFile);

/**
 * The npm Chromium, unpacked once per version into its own directory under the temp dir and
 * reused by every test file, worker and run afterwards.
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
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === '@sparticuz/chromium') break;
    if (dirname(root) === root) throw new Error(`No package.json of @sparticuz/chromium above ${entry}`);
    root = dirname(root);
  }
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const dir = join(tmpdir(), `water-sandbox-chromium-${version}`);
  const binary = join(dir, 'chromium');
  if (existsSync(binary)) return binary;

  const staging = mkdtempSync(`${dir}.unpacking-`);
  try {
    const script = 'const { default: chromium } = await import(process.argv[1]); await chromium.executablePath();';
    await run(process.execPath, ['--input-type=module', '--eval', script, entry], { env: { ...process.env, TMPDIR: staging } });
    try {
      renameSync(staging, dir);
    } catch (error) {
      if (!existsSync(binary)) throw error; // not a lost race
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return binary;
}

let executable: Promise<{ path: string; args: string[] }> | undefined;

/** Which Chromium to drive and its flags; resolved once per test file (jest gives each file its own modules). */
function browserToLaunch(): Promise<{ path: string; args: string[] }> {
  executable ??= (async () => {
    if (CHROMIUM_PATH !== undefined) {
      if (!existsSync(CHROMIUM_PATH)) throw new Error(`CHROMIUM_PATH is set to ${CHROMIUM_PATH}, which does not exist`);
      return { path: CHROMIUM_PATH, args: FLAGS };
    }
    const args = [...chromium.args.filter((arg) => !WEAKENING.has(arg)), ...FLAGS];
    return { path: await unpackedChromium(), args };
  })();
  return executable;
}

/** Headless Chromium with a fresh context (its own cookies and storage). */
export async function launchBrowser(viewport?: { width: number; height: number }): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const { path, args } = await browserToLaunch();
  const browser = await playwright.launch({ executablePath: path, args, headless: true });
  try {
    const context = await browser.newContext(viewport ? { viewport } : {});
    return { context, close: () => browser.close() };
  } catch (error) {
    await browser.close();
    throw error;
  }
}
