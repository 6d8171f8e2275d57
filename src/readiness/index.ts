/** What other features and the composition root use of integration readiness. */
export { DRILLS, type DrillName, type DrillOutcome } from './drills.js';
export { CHECK_IDS, type CheckId, type CheckStatus } from './model.js';
export {
  DrillOutcome as DrillOutcomeSchema,
  readinessOperations,
  ReadinessReport as ReadinessReportSchema,
} from './operations.js';
export type { ReadinessCheck, ReadinessReport } from './report.js';
export { readinessSandboxRouter } from './routes.js';
export { foldInterval, openedWindow, Readiness, type ReadinessDeps } from './service.js';
