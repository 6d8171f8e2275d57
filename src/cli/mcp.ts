import { VERSION } from '../core/package-info.js';
import { isSharedKey, resolveTarget, sharedAccountWarning, type ClientOptions } from './client.js';
import type { CliContext } from './context.js';

/**
 * `water-sandbox mcp`: the sandbox's MCP tools over stdio, for agents configured with a command
 * (docs/agents.md). It bridges stdin and stdout to the running sandbox's /mcp (mcp-bridge.ts,
 * loaded here only, as the MCP SDK is only this command's). Says on stderr which sandbox and
 * account it serves; stdout carries MCP messages only.
 */
export async function mcp(options: ClientOptions, ctx: CliContext): Promise<number> {
  const { baseUrl, apiKey, keyFrom } = resolveTarget(options, ctx.env);
  if (isSharedKey(apiKey)) ctx.stderr(sharedAccountWarning(keyFrom, "bridge's tools act on"));
  const { runMcpBridge } = await import('./mcp-bridge.js');
  return runMcpBridge({
    endpoint: new URL(`${baseUrl}/mcp`),
    apiKey,
    userAgent: `water-sandbox/${VERSION} (mcp)`,
    stdio: ctx.stdio,
    stderr: (text) => ctx.stderr(text),
    untilStopped: ctx.untilStopSignal(),
  });
}
