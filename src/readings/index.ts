/** What other features may use of readings. */
export { readingsRouter } from './routes.js';
export { flowsFromAlerts, ReadingsService, toGallons, type ReadingsEnvelope, type UsageSummary } from './service.js';
export type { ExtraFlow, PeriodTotals, UsageScale } from './rollup.js';
export type { GroupBy } from './local-hours.js';
