import { z } from 'zod';

import { operationsTagged } from '../http/operation.js';

/** The tag of /mcp in /openapi.json. */
export const MCP_TAG = 'Coding agents (MCP)';

const jsonRpcId = z.union([z.string(), z.number()]);

/** One JSON-RPC 2.0 message, as an MCP client POSTs it: a request, a notification, or a response to the server. */
export const McpMessage = z
  .looseObject({
    jsonrpc: z.literal('2.0'),
    id: jsonRpcId.optional().meta({ description: 'Present on a request; absent on a notification.' }),
    method: z
      .string()
      .optional()
      .meta({ examples: ['initialize', 'tools/list', 'tools/call'] }),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ description: 'One JSON-RPC 2.0 message (batches are not taken: MCP 2025-06-18 removed them).' });

/** A JSON-RPC error object, as the MCP transport answers a message it cannot take. */
export const McpErrorBody = z
  .looseObject({
    jsonrpc: z.literal('2.0'),
    id: jsonRpcId.nullable(),
    error: z.looseObject({ code: z.int(), message: z.string(), data: z.unknown().optional() }),
  })
  .meta({
    description:
      "A JSON-RPC error (the MCP transport's own refusals: a body that is not one JSON-RPC message, an Accept or Content-Type it cannot serve).",
  });

/** The answer to a request: its result, or a JSON-RPC error. */
export const McpResponse = z
  .union([
    z.looseObject({ jsonrpc: z.literal('2.0'), id: jsonRpcId, result: z.record(z.string(), z.unknown()) }),
    McpErrorBody,
  ])
  .meta({
    description:
      "The JSON-RPC response to the request: `result` (a tool's refusal is a result with isError: true), or `error`.",
  });

const operation = operationsTagged(MCP_TAG, 'account');

export const mcpOp = operation('mcp', 'POST /mcp', {
  summary: 'The MCP server for coding agents (Streamable HTTP)',
  description:
    'Model Context Protocol 2025-06-18 and 2025-11-25 over Streamable HTTP: the tools, resources and prompts of docs/agents.md, acting on the account of the credential. ' +
    'Stateless: every POST is one JSON-RPC message, served by a fresh server on any replica, answered with JSON (no session, no Mcp-Session-Id, no stream); ' +
    'GET and DELETE answer 405. Send `Accept: application/json, text/event-stream` and `Content-Type: application/json`. ' +
    "A request whose Host, or Origin when it has one, is not the sandbox's own is refused 403 (DNS rebinding protection).",
  sandbox: 'Production has no MCP server: this one drives and grades the sandbox itself.',
  body: {
    schema: McpMessage,
    required: true,
    example: {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'example', version: '1.0.0' } },
    },
  },
  responses: {
    200: { description: 'The JSON-RPC response.', schema: McpResponse },
    202: { description: 'A notification (or a response) was taken; no body.' },
  },
  errors: {
    400: 'A JSON-RPC error: the body is not one JSON-RPC message (a batch, or a message that is not JSON-RPC).',
    403: "host_not_allowed or origin_not_allowed: the Host, or the Origin, is not the sandbox's own (PUBLIC_URL, or on a local sandbox a loopback name with its port).",
    406: 'A JSON-RPC error: Accept does not list both application/json and text/event-stream.',
    415: 'A JSON-RPC error: Content-Type is not application/json.',
    429: "rate_limited: the client has MAX_QUEUED_REQUESTS requests waiting their turn already (the fair share: a wait_for_delivery holds its client's turn while it waits).",
  },
});

export const mcpOperations = [mcpOp];
