import type { Readable, Writable } from 'node:stream';

import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';

import { networkReason } from '../client/http.js';

export interface BridgeOptions {
  /** The sandbox's /mcp endpoint. */
  endpoint: URL;
  apiKey: string;
  userAgent: string;
  stdio: { input: Readable; output: Writable };
  stderr: (text: string) => void;
  /** Resolves when the process is asked to stop (SIGINT, SIGTERM). */
  untilStopped: Promise<unknown>;
}

/** The sandbox's own `message` out of an error body, else the body (cut short). */
function sandboxMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { message?: unknown; error?: unknown };
    if (typeof parsed.message === 'string')
      return typeof parsed.error === 'string' ? `${parsed.error}: ${parsed.message}` : parsed.message;
  } catch {
    // Not JSON: the text itself.
  }
  return body.length > 500 ? `${body.slice(0, 500)}…` : body;
}

/** Why a message could not be handed to the sandbox, in a sentence for the agent and its user. */
function describeFailure(error: unknown, endpoint: URL): string {
  if (error instanceof StreamableHTTPError) {
    const body = error.message.replace(/^Streamable HTTP error: Error POSTing to endpoint: /, '');
    const why = sandboxMessage(body);
    if (error.code === 401 || error.code === 403)
      return `The sandbox at ${endpoint.origin} refused the credential (HTTP ${error.code}, ${why}); give the account's API key with --api-key or WATER_API_KEY`;
    return `The sandbox at ${endpoint.origin} answered HTTP ${String(error.code)}: ${why}`;
  }
  return `Cannot reach the sandbox at ${endpoint.href} (${networkReason(error)}); is it running? Point --sandbox or SANDBOX_URL at it`;
}

/**
 * `water-sandbox mcp`: the sandbox's MCP server (POST /mcp) for a client that starts a command
 * and speaks MCP over its stdin and stdout. A transport bridge, not a second server: each
 * JSON-RPC message read on stdin is POSTed to /mcp with the account's key, and every answer is
 * written to stdout as it comes, so the tools, resources and prompts are the server's own, those
 * of the sandbox's version, checked and limited there. A message the sandbox cannot be reached
 * with is answered here with a JSON-RPC error saying why. Resolves (0) when stdin ends or the
 * process is asked to stop. Nothing but MCP messages is written to stdout.
 */
export async function runMcpBridge(options: BridgeOptions): Promise<number> {
  const { endpoint, stderr } = options;
  const upstream = new StreamableHTTPClientTransport(endpoint, {
    requestInit: { headers: { Authorization: `Bearer ${options.apiKey}`, 'User-Agent': options.userAgent } },
  });
  const local = new StdioServerTransport(options.stdio.input, options.stdio.output);
  const initializeIds = new Set<RequestId>();
  let inputEnded: () => void = () => undefined;
  const ended = new Promise<void>((resolve) => (inputEnded = resolve));

  const reply = (message: JSONRPCMessage): void => {
    local
      .send(message)
      .catch((error: unknown) => stderr(`water-sandbox mcp: writing to stdout failed: ${String(error)}\n`));
  };
  local.onmessage = (message) => {
    if (isJSONRPCRequest(message) && message.method === 'initialize') initializeIds.add(message.id);
    upstream.send(message).catch((error: unknown) => {
      const why = describeFailure(error, endpoint);
      stderr(`water-sandbox mcp: ${why}\n`);
      if (isJSONRPCRequest(message)) reply({ jsonrpc: '2.0', id: message.id, error: { code: -32603, message: why } });
    });
  };
  upstream.onmessage = (message) => {
    // Later requests carry the version the server chose, as the MCP transport asks.
    if (isJSONRPCResultResponse(message) && initializeIds.delete(message.id)) {
      const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === 'string') upstream.setProtocolVersion(version);
    }
    reply(message);
  };
  upstream.onerror = (error) => stderr(`water-sandbox mcp: ${describeFailure(error, endpoint)}\n`);
  local.onerror = (error) => stderr(`water-sandbox mcp: reading stdin: ${error.message}\n`);
  options.stdio.input.once('end', inputEnded);
  options.stdio.input.once('close', inputEnded);

  await upstream.start();
  await local.start();
  stderr(`water-sandbox mcp: serving the MCP server of ${endpoint.href} over stdio\n`);
  await Promise.race([ended, options.untilStopped]);
  await local.close();
  await upstream.close();
  return 0;
}
