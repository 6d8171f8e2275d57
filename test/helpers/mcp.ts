import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
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
