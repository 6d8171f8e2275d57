import { buildDashboardAssets } from '../dashboard/build-assets.js';

/**
 * `npm run build` (and `npm start`) runs this after tsc: bundles the dashboard's browser code
 * into dist/dashboard-assets, or leaves it when nothing it is made from changed.
 */
const result = await buildDashboardAssets();
process.stdout.write(
  result.skipped
    ? `dashboard assets up to date in ${result.outDir}\n`
    : `dashboard assets built in ${result.outDir}: ${result.manifest.script}, ${result.manifest.style}\n`,
);
