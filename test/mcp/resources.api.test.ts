import { readdirSync, readFileSync } from 'node:fs';

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import request from 'supertest';

import { READINESS_CHECKS } from '../../src/readiness/index.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { DEMO_API_KEY } from '../helpers/demo.js';
import { callTool, connectMcp, listenOnLoopback } from '../helpers/mcp.js';

// The resources (the OpenAPI document, every guide of docs/ as the package ships it, the readiness
// report, the delivery log), the two prompts, and explain_readiness_check's text from the guide.

let t: TestApp;
let served: Awaited<ReturnType<typeof listenOnLoopback>>;
let client: Client;

beforeAll(async () => {
  t = await buildTestApp();
  served = await listenOnLoopback(t.app);
  client = await connectMcp(served.url, DEMO_API_KEY);
});

afterAll(async () => {
  await client.close();
  await served.close();
});

const textOf = async (uri: string): Promise<string> => {
  const { contents } = await client.readResource({ uri });
  expect(contents).toHaveLength(1);
  return (contents[0] as { text: string }).text;
};

const guides = readdirSync('docs')
  .filter((file) => file.endsWith('.md'))
  .sort();

describe('resources', () => {
  it('lists the OpenAPI document, the readiness report, the delivery log and every guide of docs/', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual([
      'water-sandbox://openapi.json',
      'water-sandbox://readiness',
      'water-sandbox://deliveries',
      ...guides.map((file) => `water-sandbox://docs/${file}`),
    ]);
    expect(resources.find((r) => r.uri === 'water-sandbox://docs/readiness.md')).toMatchObject({
      title: 'Integration readiness: is your integration ready for production?',
      mimeType: 'text/markdown',
    });
  });

  it('serves each guide as the file shipped in docs/', async () => {
    for (const file of guides)
      expect(await textOf(`water-sandbox://docs/${file}`)).toBe(readFileSync(`docs/${file}`, 'utf8'));
  });

  it('serves the OpenAPI document as /openapi.json does', async () => {
    const served = await request(t.app).get('/openapi.json').expect(200);
    expect(JSON.parse(await textOf('water-sandbox://openapi.json'))).toEqual(served.body);
  });

  it('serves the readiness report and the delivery log of the account, as the tools answer them', async () => {
    expect(JSON.parse(await textOf('water-sandbox://readiness'))).toEqual(
      (await callTool(client, 'get_readiness')).json,
    );
    expect(JSON.parse(await textOf('water-sandbox://deliveries'))).toEqual(
      (await callTool(client, 'list_deliveries', { perPage: 100 })).json,
    );
  });

  it('an unknown resource is a JSON-RPC error naming it', async () => {
    await expect(client.readResource({ uri: 'water-sandbox://docs/../package.json' })).rejects.toThrow(/not found/i);
    await expect(client.readResource({ uri: 'file:///etc/passwd' })).rejects.toThrow(/not found/i);
  });
});

describe('prompts', () => {
  /** Every snake_case name in a plan: each must be a tool the server has. */
  const namedTools = (text: string): string[] => [...new Set(text.match(/\b[a-z]+(?:_[a-z]+)+\b/g) ?? [])];

  it('lists the two plans', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => [p.name, p.title])).toEqual([
      ['write_webhook_receiver', 'Write a receiver for the alert webhooks'],
      ['make_integration_production_ready', 'Make my integration production-ready'],
    ]);
  });

  it('"write a receiver": a plan in the language asked, naming existing tools and the checks a receiver passes', async () => {
    const { messages } = await client.getPrompt({
      name: 'write_webhook_receiver',
      arguments: { language: 'Python with Flask' },
    });
    const text = (messages[0]!.content as { text: string }).text;
    expect(text).toContain('in Python with Flask');
    expect(text).toContain(t.deps.urls.publicUrl);
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    expect(namedTools(text).filter((name) => !tools.includes(name))).toEqual([]);
    for (const tool of ['create_subscription', 'wait_for_delivery', 'start_alert', 'run_drill', 'get_readiness'])
      expect(text).toContain(tool);
    for (const check of [
      'subscriptions.confirmed',
      'webhooks.alert-answer',
      'webhooks.duplicate',
      'webhooks.out-of-order',
    ])
      expect(text).toContain(`\`${check}\``);
  });

  it('"production-ready": every required check with how to show it, and the tools to use, all existing', async () => {
    const { messages } = await client.getPrompt({ name: 'make_integration_production_ready' });
    const text = (messages[0]!.content as { text: string }).text;
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    expect(namedTools(text).filter((name) => !tools.includes(name))).toEqual([]);
    for (const [id, check] of Object.entries(READINESS_CHECKS))
      expect(text).toContain(`\`${id}\`${check.required ? ':' : ' (optional):'}`);
  });
});

describe('explain_readiness_check', () => {
  it("gives the check's section of docs/readiness.md as shipped, word for word, with its status, evidence and fix", async () => {
    const guide = readFileSync('docs/readiness.md', 'utf8');
    for (const id of Object.keys(READINESS_CHECKS)) {
      const start = guide.indexOf(`### ${id}\n`);
      const end = guide.indexOf('\n#', start + 1);
      const section = guide.slice(start, end).trim();
      const { json } = await callTool(client, 'explain_readiness_check', { checkId: id });
      expect(json).toMatchObject({
        id,
        status: expect.any(String),
        evidence: expect.any(Array),
        docs: `docs/readiness.md#${id.replace('.', '')}`,
      });
      expect([id, json['guide']]).toEqual([id, section]);
    }
  });
});
