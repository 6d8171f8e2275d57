/** What the composition root uses of accounts. */
export { fixtureClientsOf } from './initial-state.js';
export { fixturesChanged, resetAllAccounts, seedFixtures, sweepIdleAccounts } from './lifecycle.js';
export { MAX_GENERATED_LOCATIONS } from './bounds.js';
export { accountsOperations } from './operations.js';
export { accountSandboxRouter, accountsAdminRouter, requireAdmin, requireMetricsAccess } from './routes.js';
