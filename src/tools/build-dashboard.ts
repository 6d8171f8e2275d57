import { buildDashboardFiles } from './dashboard-files.js';

/**
 * `npm run build` (and `npm start`) runs this after tsc: bundles the dashboard's browser code
 * into dist/dashboard-assets, or leaves it when nothing it is made from changed; its third-party
 * notices beside it either way.
 */
const result = await buildDashboardFiles();
process.stdout.write(
  result.skipped
    ? `dashboard assets up to date in ${result.outDir}\n`
    : `dashboard assets built in ${result.outDir}: ${result.manifest.script}, ${result.manifest.style}\n`,
);
