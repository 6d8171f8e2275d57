import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Express } from 'express';

/** The test app listening on a free loopback port, as the served sandbox does; `close` ends it. */
export async function listenOnLoopback(
  app: Express,
): Promise<{ url: string; port: number; close: () => Promise<void> }> {
  const server: Server = createServer(app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The SDK's own client, connected (initialized) to /mcp of `baseUrl` with `key` as its Bearer credential. */
export async function connectMcp(baseUrl: string, key: string): Promise<Client> {
  const client = new Client({ name: 'water-sandbox-tests', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

/** A tool's answer: whether it is a tool error, and its text read as JSON. */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{
  isError: boolean;
  json: Record<string, unknown> & { message?: string; error?: string; status?: number };
}> {
  const result = (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: { type: string; text?: string }[];
  };
  const text = result.content.find((c) => c.type === 'text')?.text;
  if (text === undefined) throw new Error(`${name} answered no text: ${JSON.stringify(result)}`);
  return { isError: result.isError === true, json: JSON.parse(text) as Record<string, unknown> };
}

/** An initialize request, as a client sends it first. */
export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
};

/**
 * One raw HTTP request to a served app, with exactly the headers given (Host included: fetch
 * would not send a Host of another site). Resolves with the status, headers and body text.
 */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: IncomingHttpHeaders; text: string; json: () => Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'POST', headers: options.headers ?? {} }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text,
          json: () => JSON.parse(text) as Record<string, unknown>,
        }),
      );
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The headers of an MCP POST as the Streamable HTTP transport sends them. */
export const mcpHeaders = (key: string | null, extra: Record<string, string> = {}): Record<string, string> => ({
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
  ...(key === null ? {} : { Authorization: `Bearer ${key}` }),
  ...extra,
});
