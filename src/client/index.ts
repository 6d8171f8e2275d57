/**
 * `water-sandbox/client`: a typed client of a running sandbox for tests, on the global fetch
 * (no dependency). Its types are those of the schemas the sandbox validates and documents with.
 */
export {
  AccountClient,
  accountEnvironment,
  ReadinessError,
  SandboxAccount,
  type AssertReadyOptions,
} from './account.js';
export { SandboxError } from './http.js';
export { evidenceLine, formatChecklist } from './readiness-text.js';
export { RelayForwarder, type RelayListener, type RelayReply, type RelayRequest } from './relay.js';
export { WaterSandbox, type WaterSandboxOptions } from './sandbox.js';
export type * from './types.js';
export { WaitTimeoutError, type WaitOptions } from './wait.js';
