import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The package's folder: src/ (in development) and dist/ (built) both sit directly in it, next to fixtures/ and scenarios/. */
export const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The sandbox's version, from package.json: the one place it is written. Reported by /healthz and `water-sandbox --version`. */
export const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
