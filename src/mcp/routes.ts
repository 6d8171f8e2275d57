import { join } from 'node:path';

import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Router } from 'express';

import { PACKAGE_ROOT } from '../core/package-info.js';
import { clientAddressKey, clientNetworkKey } from '../http/client-address.js';
import { operationRouter } from '../http/operation.js';
import { authOf } from '../http/request-context.js';
import type { McpDeps } from './context.js';
import { Guides } from './guides.js';
import { requireOwnHost } from './host-check.js';
import { mcpOp } from './operations.js';
import { buildMcpServer, listedTools, type McpShared } from './server.js';
import { TOOLS } from './tools.js';

/**
 * POST /mcp: the MCP server over Streamable HTTP, for coding agents.
 * SANDBOX: production has no MCP server.
 *
 * Stateless: each POST is served by a fresh server and transport, acting on the account the
 * request's credential names, and answered with JSON. Nothing is kept between requests (no
 * session, no stream), so any replica serves any request and there is nothing to bound but the
 * requests themselves, which the fair-share gate already bounds per client like every route (one
 * JSON-RPC message per request: batches are refused). GET and DELETE answer 405: the spec's
 * answer of a server that offers no stream of its own and no session to end.
 */
export function mcpRouter(deps: McpDeps): Router {
  const shared: McpShared = {
    tools: TOOLS,
    listed: listedTools(TOOLS),
    guides: new Guides(deps.guidesDir ?? join(PACKAGE_ROOT, 'docs')),
    validator: new AjvJsonSchemaValidator(),
  };
  const api = operationRouter('');

  api.handle(
    mcpOp,
    async (_input, req, res) => {
      // MCP 2025-06-18 removed JSON-RPC batches: one message per request keeps one tool call per turn of the gate.
      if (Array.isArray(req.body)) {
        res.status(400).json({
          jsonrpc: '2.0',
          id: null,
          error: {
            code: -32600,
            message: 'Invalid Request: send one JSON-RPC message per request (MCP 2025-06-18 removed batches)',
          },
        });
        return;
      }
      const controller = new AbortController();
      const server = buildMcpServer(deps, shared, {
        caller: authOf(res),
        clientAddress: clientAddressKey(req),
        clientNetwork: clientNetworkKey(req),
        signal: controller.signal,
      });
      // No sessionIdGenerator: stateless.
      const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
      // The answer sent, or the client gone: a wait still running ends, and the pair is let go.
      res.on('close', () => {
        controller.abort();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    },
    requireOwnHost(deps),
    ...deps.controlsAuthorization,
  );

  return api.done();
}
