/** What other features may use of readings. */
export { readingsRouter } from './routes.js';
export { flowsFromAlerts, ReadingsService, toGallons } from './service.js';
export { getWaterUsageOp, readingsOperations } from './operations.js';
export { ReadingsEnvelope, UsageSummary } from './schemas.js';
export type { ExtraFlow, PeriodTotals, UsageScale } from './rollup.js';
export type { GroupBy } from './local-hours.js';
