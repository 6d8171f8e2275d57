import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { DEMO_API_KEY } from '../cli/client.js';
import { loadConfig } from '../config.js';
import { PACKAGE_ROOT } from '../core/package-info.js';
import { startSandbox } from '../server.js';

/**
 * `npm run test:mcp-conformance`: the MCP conformance suite (@modelcontextprotocol/conformance,
 * server mode, every scenario of its active suite) against /mcp of a sandbox started here, on
 * the Node running this (the suite needs Node 22 or later; .ci/run runs it on Node 24).
 *
 * The suite's client sends no credentials, and /mcp needs the account's, as the controls do. So
 * it speaks to a gateway on loopback that adds the demo account's key to each request and passes
 * everything else through as sent, Host and Origin included: the sandbox is started with the
 * gateway's address as PUBLIC_URL (as behind any proxy), so that its own Host is accepted and a
 * foreign one (the DNS rebinding scenario) still reaches the sandbox's check and is refused.
 *
 * The scenarios that call the suite's own fixture tools, resources and prompts (test_image_content,
 * test://static-text...) cannot pass on the sandbox, which has its own: .ci/mcp-conformance-expected-failures.yml
 * lists each with its reason. The suite fails on any other failure, and on an entry that passes.
 */
const EXPECTED_FAILURES = join(PACKAGE_ROOT, '.ci', 'mcp-conformance-expected-failures.yml');
const SUITE = join(PACKAGE_ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

function listen(server: ReturnType<typeof createServer>): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

/** Forwards a request to the sandbox as it came, with the demo key when it carries no credential of its own. */
function forwardTo(sandboxPort: number) {
  return (incoming: IncomingMessage, answer: ServerResponse): void => {
    const headers = { ...incoming.headers };
    headers.authorization ??= `Bearer ${DEMO_API_KEY}`;
    const outgoing = request(
      { host: '127.0.0.1', port: sandboxPort, method: incoming.method, path: incoming.url, headers },
      (response) => {
        answer.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(answer);
      },
    );
    outgoing.on('error', (error) => {
      if (!answer.headersSent) answer.writeHead(502, { 'content-type': 'text/plain' });
      answer.end(`gateway: ${error.message}`);
    });
    incoming.pipe(outgoing);
  };
}

function runSuite(url: string, outputDir: string): Promise<number> {
  const args = [SUITE, 'server', '--url', url, '--expected-failures', EXPECTED_FAILURES, '--output-dir', outputDir];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve(code ?? (signal === null ? 1 : 128)));
  });
}

const gateway = createServer();
const gatewayPort = await listen(gateway);
const sandbox = await startSandbox(
  loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: ':memory:',
    LOG_LEVEL: 'warn',
    PUBLIC_URL: `http://127.0.0.1:${gatewayPort}`,
  }),
);
gateway.on('request', forwardTo(sandbox.port));
const outputDir = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
let code = 1;
try {
  process.stdout.write(
    `MCP conformance: the sandbox on port ${sandbox.port}, through its gateway ${sandbox.deps.urls.publicUrl}\n`,
  );
  code = await runSuite(`http://127.0.0.1:${gatewayPort}/mcp`, outputDir);
} finally {
  gateway.closeAllConnections();
  gateway.close();
  await sandbox.stop();
  if (code === 0) rmSync(outputDir, { recursive: true, force: true });
  else process.stdout.write(`MCP conformance: each scenario's checks.json is in ${outputDir}\n`);
}
process.exitCode = code;
