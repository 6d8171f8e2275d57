/** What the composition root uses of the OpenAPI description. */
export { buildOpenApiDocument, type DocumentOptions } from './document.js';
export { ALL_OPERATIONS, healthOp, metricsOp } from './registry.js';
export { openApiJson, openApiRouter } from './routes.js';
