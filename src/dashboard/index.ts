/** What the composition root uses of the dashboard. */
export { dashboardRouter } from './routes.js';
