/** What other features and the composition root use of integration readiness. */
export { drillAnswer, readinessAnswer, resetReadinessAnswer, type ReadinessAnswersDeps } from './answers.js';
export { CATALOG as READINESS_CHECKS, GUIDE as READINESS_GUIDE } from './catalog.js';
export { DRILLS, type DrillName, type DrillOutcome } from './drills.js';
export { CHECK_IDS, type CheckId, type CheckStatus } from './model.js';
export {
  DrillOutcome as DrillOutcomeSchema,
  getReadinessOp,
  readinessOperations,
  ReadinessReport as ReadinessReportSchema,
  resetReadinessOp,
  runDrillOp,
} from './operations.js';
export type { ReadinessCheck, ReadinessReport } from './report.js';
export { readinessSandboxRouter } from './routes.js';
export { foldInterval, openedWindow, Readiness, type ReadinessDeps } from './service.js';
