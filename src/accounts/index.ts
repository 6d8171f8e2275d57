/** What the composition root and other features use of accounts. */
export { createAccountAnswer, resetAccountAnswer, type AccountsDeps } from './answers.js';
export { fixtureClientsOf } from './initial-state.js';
export { fixturesChanged, resetAllAccounts, seedFixtures, sweepIdleAccounts } from './lifecycle.js';
export { MAX_GENERATED_LOCATIONS } from './bounds.js';
export { accountsOperations, createAccountOp, resetAccountOp } from './operations.js';
export { accountSandboxRouter, accountsAdminRouter, requireAdmin, requireMetricsAccess } from './routes.js';
