import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { DEMO_API_KEY } from '../helpers/demo.js';
import { callTool, connectMcp, listenOnLoopback } from '../helpers/mcp.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { expectRefusal, TOOL_CASES, type CaseState } from './tool-cases.js';

// `water-sandbox mcp` as an agent runs it: a real child process (the sources, through the same
// TypeScript hooks as test/helpers/cli-process.ts), spoken to over its stdin and stdout by the
// SDK's own stdio client, bridging to the sandbox's /mcp on a loopback port.

const here = (path: string): string => fileURLToPath(new URL(path, import.meta.url));
const REGISTER_TS = here('../store/crash/register-ts.mjs');
const MAIN = here('../../src/main.ts');

/** The stdio client of `water-sandbox mcp <args>`, with only PATH (and `env`) in its environment; its stderr collected. */
function stdioTransport(
  args: string[],
  env: Record<string, string> = {},
): { transport: StdioClientTransport; stderr: () => string } {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', REGISTER_TS, MAIN, 'mcp', ...args],
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { transport, stderr: () => stderr };
}

let t: TestApp;
let served: Awaited<ReturnType<typeof listenOnLoopback>>;

beforeAll(async () => {
  t = await buildTestApp();
  served = await listenOnLoopback(t.app);
});

afterAll(async () => {
  await t.deps.dispatcher.idle();
  await served.close();
});

describe('every tool, over stdio', () => {
  let client: Client;
  let receiver: WebhookReceiver;
  let stderr: () => string;
  const state: CaseState = {
    client: () => client,
    receiver: () => receiver,
    advance: (seconds) => t.clock.advance(seconds * 1000),
    ids: {},
  };

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    const stdio = stdioTransport(['--sandbox', served.url, '--api-key', DEMO_API_KEY]);
    stderr = stdio.stderr;
    client = new Client({ name: 'water-sandbox-tests', version: '1.0.0' });
    await client.connect(stdio.transport);
  }, 30_000);

  afterAll(async () => {
    await client.close();
    await t.deps.dispatcher.idle();
    await receiver.close();
  });

  it('lists the same tools, resources and prompts as /mcp, and says on stderr which sandbox it serves and that the key given is a shared one', async () => {
    const http = await connectMcp(served.url, DEMO_API_KEY);
    try {
      expect((await client.listTools()).tools).toEqual((await http.listTools()).tools);
      expect((await client.listResources()).resources).toEqual((await http.listResources()).resources);
      expect((await client.listPrompts()).prompts).toEqual((await http.listPrompts()).prompts);
    } finally {
      await http.close();
    }
    expect(client.getServerVersion()).toMatchObject({ name: 'water-sandbox' });
    expect(stderr()).toContain(`water-sandbox mcp: serving the MCP server of ${served.url}/mcp over stdio`);
    // The demo key, given with --api-key, is published: the bridge says its account is everyone's (#40).
    expect(stderr()).toContain(
      "warning: the key of --api-key is a published one of the shared demo data, so this bridge's tools act on the demo account",
    );
  });

  describe.each(TOOL_CASES)('$tool', (toolCase) => {
    it('does its job with good input', async () => {
      await toolCase.good(state);
    });

    it('refuses bad input with the same tool error as over HTTP', async () => {
      await expectRefusal(client, toolCase, state);
    });
  });
});

describe('the stdio command as a new user meets it', () => {
  it('without --api-key or WATER_API_KEY uses the demo account, and warns on stderr that every user shares it', async () => {
    const stdio = stdioTransport(['--sandbox', served.url]);
    const client = new Client({ name: 'water-sandbox-tests', version: '1.0.0' });
    await client.connect(stdio.transport);
    try {
      expect((await callTool(client, 'get_clock')).isError).toBe(false);
      expect(stdio.stderr()).toContain(
        "warning: neither --api-key nor WATER_API_KEY is set, so this bridge's tools act on the demo account, which every user of this sandbox shares",
      );
    } finally {
      await client.close();
    }
  }, 30_000);

  it("a key the sandbox refuses: initialize fails with the sandbox's reason, also on stderr", async () => {
    const stdio = stdioTransport(['--sandbox', served.url], { WATER_API_KEY: 'not-a-key' });
    const client = new Client({ name: 'water-sandbox-tests', version: '1.0.0' });
    await expect(client.connect(stdio.transport)).rejects.toThrow(
      /refused the credential \(HTTP 403, invalid_credentials: The API key or access token in the Authorization header is not valid/,
    );
    await client.close();
    expect(stdio.stderr()).toContain('refused the credential');
  }, 30_000);

  it('a sandbox that is not there: initialize fails saying where it looked and what to do', async () => {
    const gone = await listenOnLoopback(t.app);
    await gone.close();
    const stdio = stdioTransport(['--sandbox', gone.url, '--api-key', DEMO_API_KEY]);
    const client = new Client({ name: 'water-sandbox-tests', version: '1.0.0' });
    await expect(client.connect(stdio.transport)).rejects.toThrow(
      new RegExp(
        `Cannot reach the sandbox at ${gone.url}/mcp \\(ECONNREFUSED\\); is it running\\? Point --sandbox or SANDBOX_URL at it`,
      ),
    );
    await client.close();
  }, 30_000);
});
