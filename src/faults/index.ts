/** What the composition root uses of faults. */
export { applyFaults } from './faults.js';
export { faultsRouter } from './routes.js';
