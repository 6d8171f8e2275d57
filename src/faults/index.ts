/** What the composition root and other features use of faults. */
export { addFault, clearFaults } from './answers.js';
export { applyFaults, FAULT_HEADER, queueFault, type FaultsDeps, type NewFault } from './faults.js';
export { createFaultOp, deleteFaultsOp, faultsOperations } from './operations.js';
export { faultsRouter } from './routes.js';
