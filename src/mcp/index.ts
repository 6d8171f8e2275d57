/** What the composition root and the OpenAPI description use of the MCP server. */
export type { McpDeps } from './context.js';
export { MCP_TAG, McpErrorBody, mcpOperations } from './operations.js';
export { mcpRouter } from './routes.js';
export { McpWaits } from './waits.js';
