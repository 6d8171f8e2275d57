/** What other features and the composition root use of scenarios. */
export { loadScenarios, ScenarioError } from './catalog.js';
export { cancelRunAnswer, moveClock, runAnswer, scenarioList, startRunAnswer } from './answers.js';
export {
  cancelRunOp,
  ClockStateBody,
  getClockOp,
  getRunOp,
  listScenariosOp,
  Run,
  scenariosOperations,
  setClockOp,
  startRunOp,
} from './operations.js';
export { scenariosSandboxRouter } from './routes.js';
export { runDueSteps, scenarioWork } from './due-steps.js';
export { startRun, type ScenariosDeps } from './runner.js';
export type { Scenario, ScenarioCatalog, ScenarioStep } from './schema.js';
export { resolveStartupRun, startStartupRun } from './startup.js';
