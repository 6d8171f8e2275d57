import { join, relative } from 'node:path';

import { PACKAGE_ROOT } from '../core/package-info.js';
import { bundlePackageEntries, writePackageTypes } from './package-files.js';

/**
 * `npm run build:package` (after `npm run build`; `npm pack` runs both): the entry points
 * water-sandbox/client and water-sandbox/testcontainers in dist/package/ (see package-files.ts).
 */
const DIST = join(PACKAGE_ROOT, 'dist');
const out = join(DIST, 'package');
await bundlePackageEntries((entry) => join(DIST, entry, 'index.js'), out);
const types = await writePackageTypes(join(out, 'types'));
process.stdout.write(
  `package entry points built in ${relative(process.cwd(), out)}: client.js, testcontainers.js and ${types.length} declaration files\n`,
);
