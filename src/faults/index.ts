/** What the composition root uses of faults. */
export { applyFaults, FAULT_HEADER, queueFault, type NewFault } from './faults.js';
export { faultsOperations } from './operations.js';
export { faultsRouter } from './routes.js';
