/** What the composition root uses of the dashboard. */
export { dashboardRouter, sendDashboard } from './routes.js';
export { DASHBOARD_PATHS } from './page-config.js';
export { loadDashboardAssets, type DashboardAssets } from './assets.js';
