import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';

import { AppError, internalError, LimitError } from '../core/errors.js';
import { VERSION } from '../core/package-info.js';
import { errorBody } from '../http/error-handler.js';
import { readinessAnswer } from '../readiness/index.js';
import { deliveriesPage } from '../webhooks/index.js';
import type { McpDeps, ToolCall } from './context.js';
import type { Guides } from './guides.js';
import { productionReadyPlan, receiverPlan, ReceiverPromptArgs } from './prompts.js';
import type { McpTool } from './tools.js';

/** What every request's server shares: made once per app. */
export interface McpShared {
  tools: readonly McpTool[];
  /** tools/list's answer, the same for every request. */
  listed: Tool[];
  guides: Guides;
  /** The SDK's JSON Schema validator, made once (each server would otherwise build its own Ajv). */
  validator: AjvJsonSchemaValidator;
}

export const RESOURCE_SCHEME = 'water-sandbox:';

/** tools/list's entries. */
export const listedTools = (tools: readonly McpTool[]): Tool[] =>
  tools.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: t.input.jsonSchema,
    annotations: t.annotations,
  }));

const text = (value: unknown): string => (Buffer.isBuffer(value) ? value.toString('utf8') : JSON.stringify(value));

/**
 * Runs a tool. A refusal of the sandbox (an AppError it shows) is a tool error carrying the body
 * the API would answer, with its status: `{"status", "error", "message", "parameter"?}`. Anything
 * else is logged, and the tool error says only that it happened.
 */
async function callTool(deps: McpDeps, shared: McpShared, call: ToolCall, name: string, args: unknown) {
  const found = shared.tools.find((t) => t.name === name);
  try {
    if (!found)
      throw new AppError(
        404,
        'unknown_tool',
        `No tool ${JSON.stringify(name)}; tools/list lists them: ${shared.tools.map((t) => t.name).join(', ')}`,
      );
    const value = await found.run({ deps, call, guides: shared.guides }, found.input.parse(args, found.name));
    return { content: [{ type: 'text', text: text(value) }] } satisfies CallToolResult;
  } catch (error) {
    const appError = error instanceof AppError ? error : internalError('an MCP tool threw');
    // errorBody shows a server error's message as "unexpected error": the log has it.
    if (!appError.expose)
      deps.logger.error('MCP tool failed', { tool: name, accountId: call.caller.accountId, err: error });
    if (error instanceof LimitError) {
      deps.countLimited?.(error.limit);
      deps.logger.warn('request refused by a limit', {
        limit: error.limit,
        status: error.status,
        tool: name,
        accountId: call.caller.accountId,
      });
    }
    return {
      isError: true,
      content: [{ type: 'text', text: JSON.stringify({ status: appError.status, ...errorBody(appError) }) }],
    } satisfies CallToolResult;
  }
}

function instructions(deps: McpDeps, call: ToolCall): string {
  const { account } = call.caller.doc;
  return (
    `The water-monitoring API sandbox at ${deps.urls.publicUrl}, acting on account "${account.name}" (${account.accountId}), the account of the credential this client sent. ` +
    `Your integration under test calls the same sandbox: its /v1 API and /oauth2/token at ${deps.urls.publicUrl}. ` +
    'These tools drive it (alerts, scenarios, the clock, faults, drills) and read what it saw (the delivery log, the request journal); ' +
    "get_readiness grades the integration from its own traffic (these tools' calls are not part of it), and explain_readiness_check says what to change. " +
    'The prompts write_webhook_receiver and make_integration_production_ready are step-by-step plans.'
  );
}

/** The MCP server of one request: the tools, resources and prompts, acting on the caller's account only. */
export function buildMcpServer(deps: McpDeps, shared: McpShared, call: ToolCall): McpServer {
  const mcp = new McpServer(
    { name: 'water-sandbox', title: 'Water monitoring API sandbox', version: VERSION },
    {
      // logging/setLevel is answered; the server sends no log messages (its answers are JSON, not streams).
      capabilities: { logging: {} },
      instructions: instructions(deps, call),
      jsonSchemaValidator: shared.validator,
    },
  );
  // Tools are served here rather than through registerTool, so that their arguments are checked by
  // the API's own schemas and a refusal carries the API's message (see tool-input.ts).
  mcp.server.registerCapabilities({ tools: {} });
  mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: shared.listed }));
  mcp.server.setRequestHandler(CallToolRequestSchema, (request) =>
    callTool(deps, shared, call, request.params.name, request.params.arguments),
  );

  const json = (uri: string, value: unknown) => ({
    contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(value) }],
  });
  const openApiUri = `${RESOURCE_SCHEME}//openapi.json`;
  mcp.registerResource(
    'openapi',
    openApiUri,
    {
      title: 'OpenAPI document',
      description:
        "The sandbox's API (/v1, the authorization host and /sandbox controls) as OpenAPI 3.1: /openapi.json.",
      mimeType: 'application/json',
    },
    () => ({ contents: [{ uri: openApiUri, mimeType: 'application/json', text: deps.openApiDocument() }] }),
  );
  const readinessUri = `${RESOURCE_SCHEME}//readiness`;
  mcp.registerResource(
    'readiness',
    readinessUri,
    {
      title: 'Readiness report',
      description: "The account's readiness report, as get_readiness answers it.",
      mimeType: 'application/json',
    },
    async () => json(readinessUri, await readinessAnswer(deps, call.caller.accountId)),
  );
  const deliveriesUri = `${RESOURCE_SCHEME}//deliveries`;
  mcp.registerResource(
    'deliveries',
    deliveriesUri,
    {
      title: 'Delivery log',
      description: "The newest 100 deliveries of the account's delivery log, as list_deliveries answers them.",
      mimeType: 'application/json',
    },
    async () => json(deliveriesUri, await deliveriesPage(deps, call.caller.accountId, { perPage: 100 })),
  );
  for (const guide of shared.guides.list()) {
    const uri = `${RESOURCE_SCHEME}//docs/${guide.file}`;
    mcp.registerResource(
      `docs/${guide.file}`,
      uri,
      { title: guide.title, description: `The guide docs/${guide.file}.`, mimeType: 'text/markdown' },
      async () => ({
        contents: [{ uri, mimeType: 'text/markdown', text: (await shared.guides.read(guide.file)) ?? '' }],
      }),
    );
  }

  mcp.registerPrompt(
    'write_webhook_receiver',
    {
      title: 'Write a receiver for the alert webhooks',
      description:
        'A plan for a webhook receiver that confirms its subscription and answers alerts, duplicates and out-of-order ends as production requires, proven with the sandbox.',
      argsSchema: ReceiverPromptArgs,
    },
    ({ language }) => ({
      messages: [
        { role: 'user', content: { type: 'text', text: receiverPlan({ language, publicUrl: deps.urls.publicUrl }) } },
      ],
    }),
  );
  mcp.registerPrompt(
    'make_integration_production_ready',
    {
      title: 'Make my integration production-ready',
      description: 'A plan to pass every required check of the readiness report, with the tools and drills for each.',
    },
    () => ({
      messages: [
        { role: 'user', content: { type: 'text', text: productionReadyPlan({ publicUrl: deps.urls.publicUrl }) } },
      ],
    }),
  );
  return mcp;
}
