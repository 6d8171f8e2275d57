import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { DEMO_API_KEY } from '../helpers/demo.js';
import { connectMcp, listenOnLoopback } from '../helpers/mcp.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { expectRefusal, TOOL_CASES, type CaseState } from './tool-cases.js';

// Every tool over Streamable HTTP, with the SDK's own client against the app on a loopback port:
// once with good input (in an order where each uses what earlier ones made), once with bad.

let t: TestApp;
let served: Awaited<ReturnType<typeof listenOnLoopback>>;
let client: Client;
let receiver: WebhookReceiver;
const state: CaseState = {
  client: () => client,
  receiver: () => receiver,
  advance: (seconds) => t.clock.advance(seconds * 1000),
  ids: {},
};

beforeAll(async () => {
  t = await buildTestApp();
  served = await listenOnLoopback(t.app);
  receiver = await WebhookReceiver.start();
  client = await connectMcp(served.url, DEMO_API_KEY);
});

afterAll(async () => {
  await client.close();
  await t.deps.dispatcher.idle();
  await receiver.close();
  await served.close();
});

it('lists exactly the tools of the cases, each with a description, an object input schema and annotations', async () => {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual(TOOL_CASES.map((c) => c.tool).sort());
  for (const tool of tools) {
    expect(tool.description).toEqual(expect.any(String));
    expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
    expect(tool.annotations).toEqual(expect.objectContaining({ readOnlyHint: expect.any(Boolean) }));
    if (tool.annotations?.readOnlyHint === false) expect(tool.annotations.destructiveHint).toEqual(expect.any(Boolean));
  }
});

describe.each(TOOL_CASES)('$tool', (toolCase) => {
  it('does its job with good input', async () => {
    await toolCase.good(state);
  });

  it("refuses bad input with a tool error carrying the sandbox's message that names the parameter", async () => {
    await expectRefusal(client, toolCase, state);
  });
});
