import request from 'supertest';

import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { consentKindToken } from '../helpers/consent-token.js';
import { bearer, DEMO_API_KEY } from '../helpers/demo.js';
import { INITIALIZE, listenOnLoopback, mcpHeaders, rawRequest } from '../helpers/mcp.js';
import { loginAndGetToken } from '../helpers/oauth.js';

// /mcp as HTTP: who may call it (exactly who may call /sandbox/*), which Host and Origin it
// answers (DNS rebinding), and what it does with what is not one MCP message.

const HOSTED = { PUBLIC_URL: 'https://sandbox.example.com' };

const apps: { t: TestApp; close: () => Promise<void> }[] = [];
async function serve(env: Record<string, string> = {}): Promise<{ t: TestApp; url: string; port: number }> {
  const t = await buildTestApp({ env });
  const served = await listenOnLoopback(t.app);
  apps.push({ t, close: served.close });
  return { t, url: served.url, port: served.port };
}

afterEach(async () => {
  for (const { t, close } of apps.splice(0)) {
    await t.deps.dispatcher.idle();
    await close();
  }
});

const initialize = (url: string, headers: Record<string, string>, version = '2025-11-25') =>
  rawRequest(`${url}/mcp`, {
    headers,
    body: JSON.stringify({ ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: version } }),
  });

describe('credentials, as /sandbox/* takes them', () => {
  it('none: 401 with a Bearer challenge, saying what to send', async () => {
    const { url } = await serve();
    const answer = await initialize(url, mcpHeaders(null));
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toBe('Bearer realm="water-sandbox"');
    expect(answer.json()).toEqual({
      error: 'missing_credentials',
      message: 'The Authorization header is missing; send "Authorization: Bearer <API key or access token>"',
    });
  });

  it("answers each kind of credential exactly as /sandbox/clock does (the controls' own authorization)", async () => {
    const { t, url } = await serve();
    const own = await loginAndGetToken(t.app);
    const expired = await loginAndGetToken(t.app);
    await request(t.app)
      .post('/sandbox/tokens/expire')
      .set(bearer(DEMO_API_KEY))
      .send({ accessToken: expired.access_token })
      .expect(200);
    const credentials: [string, string | null][] = [
      ['none', null],
      ['another scheme', 'Basic ZGVtbzpkZW1v'],
      ['an unknown key', 'Bearer not-a-key'],
      ["the account's API key", `Bearer ${DEMO_API_KEY}`],
      ["an access token of the account's own client", `Bearer ${own.access_token}`],
      ['an expired access token', `Bearer ${expired.access_token}`],
      ["an access token of another account's client that the user allowed", `Bearer ${await consentKindToken(t.app)}`],
    ];
    for (const [kind, authorization] of credentials) {
      const controls = request(t.app).get('/sandbox/clock');
      if (authorization !== null) void controls.set('Authorization', authorization);
      const sandbox = await controls;
      const mcp = await initialize(url, {
        ...mcpHeaders(null),
        ...(authorization === null ? {} : { Authorization: authorization }),
      });
      expect([kind, mcp.status, mcp.headers['www-authenticate'] ?? null]).toEqual([
        kind,
        sandbox.status,
        sandbox.headers['www-authenticate'] ?? null,
      ]);
      if (sandbox.status >= 400) expect([kind, mcp.json()]).toEqual([kind, sandbox.body]);
    }
  });
});

describe("a token of another account's app (the consent kind)", () => {
  // #40 item 1: the controls refuse such a token with 403 (it reaches /v1 alone); /mcp, calling the
  // controls' own authorization, refuses it the same way.
  it('is refused 403 on /mcp, as on the controls, with the Bearer challenge', async () => {
    const { t, url } = await serve();
    const token = await consentKindToken(t.app);
    const controls = await request(t.app).get('/sandbox/clock').set('Authorization', `Bearer ${token}`);
    const mcp = await initialize(url, { ...mcpHeaders(null), Authorization: `Bearer ${token}` });
    expect(controls.status).toBe(403);
    expect(mcp.status).toBe(403);
    expect(mcp.headers['www-authenticate']).toMatch(/^Bearer /);
    expect(mcp.json()).toEqual(controls.body);
  });
});

describe("DNS rebinding: the Host, and the Origin when sent, must be the sandbox's own", () => {
  it('a local sandbox answers its loopback names with its own port', async () => {
    const { url, port } = await serve();
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `LocalHost:${port}`]) {
      const answer = await initialize(url, mcpHeaders(DEMO_API_KEY, { Host: host, Origin: `http://${host}` }));
      expect([host, answer.status]).toEqual([host, 200]);
    }
  });

  it('refuses another name, a loopback name with another port, and a foreign Origin with 403, before the credentials are looked at', async () => {
    const { url, port } = await serve();
    const refusals: [Record<string, string>, string, RegExp][] = [
      [{ Host: 'evil.example.com' }, 'host_not_allowed', /^The Host header "evil.example.com" is not this sandbox's/],
      [{ Host: `evil.example.com:${port}` }, 'host_not_allowed', /Host header/],
      [{ Host: `localhost:${port + 1}` }, 'host_not_allowed', /Host header/],
      [{ Host: `192.168.1.20:${port}` }, 'host_not_allowed', /Host header/],
      [{ Host: `localhost:${port}/x` }, 'host_not_allowed', /Host header/],
      [{ Origin: 'http://evil.example.com' }, 'origin_not_allowed', /^The Origin header "http:\/\/evil.example.com"/],
      [{ Origin: `http://localhost:${port + 1}` }, 'origin_not_allowed', /Origin header/],
      [{ Origin: 'null' }, 'origin_not_allowed', /Origin header "null"/],
    ];
    for (const [headers, error, message] of refusals) {
      for (const key of [DEMO_API_KEY, null]) {
        const answer = await initialize(url, mcpHeaders(key, headers));
        expect([headers, answer.status]).toEqual([headers, 403]);
        expect(answer.json()).toEqual({ error, message: expect.stringMatching(message) });
        expect(answer.json()['message']).toContain('DNS rebinding');
      }
    }
  });

  it('a hosted sandbox answers the host of its PUBLIC_URL only, whatever its loopback port', async () => {
    const { url, port } = await serve(HOSTED);
    expect((await initialize(url, mcpHeaders(DEMO_API_KEY, { Host: 'sandbox.example.com' }))).status).toBe(200);
    expect(
      (
        await initialize(
          url,
          mcpHeaders(DEMO_API_KEY, { Host: 'sandbox.example.com', Origin: 'https://sandbox.example.com' }),
        )
      ).status,
    ).toBe(200);
    const loopback = await initialize(url, mcpHeaders(DEMO_API_KEY, { Host: `127.0.0.1:${port}` }));
    expect(loopback.status).toBe(403);
    expect(loopback.json()['message']).toMatch(
      /^The Host header "127.0.0.1:\d+" is not this sandbox's \(sandbox.example.com\)/,
    );
  });
});

describe('the transport', () => {
  it('negotiates MCP 2025-06-18 and 2025-11-25 as asked, with the server info and capabilities', async () => {
    const { url } = await serve();
    for (const version of ['2025-06-18', '2025-11-25']) {
      const answer = await initialize(url, mcpHeaders(DEMO_API_KEY), version);
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toMatch(/^application\/json/);
      expect(answer.headers['mcp-session-id']).toBeUndefined();
      expect(answer.json()).toMatchObject({
        jsonrpc: '2.0',
        id: 1,
        result: {
          protocolVersion: version,
          serverInfo: { name: 'water-sandbox' },
          capabilities: { tools: {}, resources: {}, prompts: {} },
          instructions: expect.stringContaining('acting on account'),
        },
      });
    }
  });

  it('is stateless: a tools/call needs no initialize before it, on any replica', async () => {
    const { url } = await serve();
    const answer = await rawRequest(`${url}/mcp`, {
      headers: mcpHeaders(DEMO_API_KEY, { 'MCP-Protocol-Version': '2025-11-25' }),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'get_clock', arguments: {} },
      }),
    });
    expect(answer.status).toBe(200);
    expect(answer.json()).toMatchObject({ id: 7, result: { content: [{ type: 'text' }] } });
  });

  it('a notification is taken with 202 and no body', async () => {
    const { url } = await serve();
    const answer = await rawRequest(`${url}/mcp`, {
      headers: mcpHeaders(DEMO_API_KEY),
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    expect([answer.status, answer.text]).toEqual([202, '']);
  });

  it('GET and DELETE answer 405 with Allow: POST (no stream of its own, no session to end)', async () => {
    const { url } = await serve();
    for (const method of ['GET', 'DELETE']) {
      const answer = await rawRequest(`${url}/mcp`, {
        method,
        headers: { Accept: 'text/event-stream', Authorization: `Bearer ${DEMO_API_KEY}` },
      });
      expect([method, answer.status, answer.headers['allow']]).toEqual([method, 405, 'POST']);
    }
  });

  it('refuses a batch, a body that is not JSON-RPC, a wrong Accept and a wrong Content-Type, each saying why', async () => {
    const { url } = await serve();
    const batch = await rawRequest(`${url}/mcp`, {
      headers: mcpHeaders(DEMO_API_KEY),
      body: JSON.stringify([INITIALIZE, { ...INITIALIZE, id: 2 }]),
    });
    expect(batch.status).toBe(400);
    expect(batch.json()).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: expect.stringMatching(/one JSON-RPC message per request/) },
    });

    const notRpc = await rawRequest(`${url}/mcp`, { headers: mcpHeaders(DEMO_API_KEY), body: '{"hello": "world"}' });
    expect(notRpc.status).toBe(400);
    expect(notRpc.json()).toMatchObject({ jsonrpc: '2.0', error: { message: expect.stringMatching(/JSON-RPC/) } });

    const accept = await rawRequest(`${url}/mcp`, {
      headers: mcpHeaders(DEMO_API_KEY, { Accept: 'application/json' }),
      body: JSON.stringify(INITIALIZE),
    });
    expect(accept.status).toBe(406);

    const type = await rawRequest(`${url}/mcp`, {
      headers: mcpHeaders(DEMO_API_KEY, { 'Content-Type': 'text/plain' }),
      body: JSON.stringify(INITIALIZE),
    });
    expect(type.status).toBe(415);

    const broken = await rawRequest(`${url}/mcp`, { headers: mcpHeaders(DEMO_API_KEY), body: '{"jsonrpc": ' });
    expect(broken.status).toBe(400);
    expect(broken.json()).toMatchObject({ error: 'invalid_json' });
  });

  it('bounds the body like every route: over 100 kB is a 413', async () => {
    const { url } = await serve();
    const answer = await rawRequest(`${url}/mcp`, {
      headers: mcpHeaders(DEMO_API_KEY),
      body: JSON.stringify({ ...INITIALIZE, params: { ...INITIALIZE.params, padding: 'x'.repeat(110_000) } }),
    });
    expect(answer.status).toBe(413);
    expect(answer.json()).toMatchObject({ error: 'payload_too_large' });
  });

  it('an unknown method is a JSON-RPC error; an unknown tool is a tool error listing the tools', async () => {
    const { url } = await serve();
    const method = await rawRequest(`${url}/mcp`, {
      headers: mcpHeaders(DEMO_API_KEY),
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/destroy' }),
    });
    expect(method.json()).toMatchObject({ id: 3, error: { code: -32601 } });
    const tool = await rawRequest(`${url}/mcp`, {
      headers: mcpHeaders(DEMO_API_KEY),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params: { name: 'drop_database', arguments: {} },
      }),
    });
    const result = tool.json()['result'] as { isError: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[0]!.text)).toMatchObject({
      status: 404,
      error: 'unknown_tool',
      message: expect.stringMatching(/^No tool "drop_database"; tools\/list lists them: list_locations, /),
    });
  });
});
