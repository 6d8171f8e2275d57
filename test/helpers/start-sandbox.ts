import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/core/logger.js';
import { startSandbox, type RunningSandbox } from '../../src/server.js';
import type { Resolve } from '../../src/webhooks/address-policy.js';
import { loopbackOnlySenderFor, testResolve } from './loopback-only-sender.js';
import { observe } from './openapi-check.js';

const running: RunningSandbox[] = [];

/** The whole server as main.ts starts it, on 127.0.0.1 and a free port; `stopAllSandboxes` ends them. */
export async function startTestSandbox(
  env: Record<string, string> = {},
  resolve: Resolve = testResolve(),
): Promise<RunningSandbox> {
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', DATA_DIR: ':memory:', ...env });
  const sandbox = await startSandbox(config, {
    logger: silentLogger,
    sender: loopbackOnlySenderFor(config, resolve),
    resolve,
  });
  // Its responses are checked against /openapi.json too; first, so it sees every response whole.
  sandbox.server.prependListener('request', observe);
  running.push(sandbox);
  return sandbox;
}

export async function stopAllSandboxes(): Promise<void> {
  await Promise.all(running.splice(0).map((s) => s.stop()));
}
