import type { RequestHandler } from 'express';

import type { AccountsDeps } from '../accounts/index.js';
import type { AlertsDeps } from '../alerts/index.js';
import type { FaultsDeps } from '../faults/index.js';
import type { AuthContext } from '../http/request-context.js';
import type { ReadinessAnswersDeps } from '../readiness/index.js';
import type { ReadingsService } from '../readings/index.js';
import type { ScenariosDeps } from '../scenarios/index.js';
import type { SubscriptionsDeps } from '../subscriptions/index.js';
import type { DeliveriesDeps } from '../webhooks/index.js';
import type { HostCheckDeps } from './host-check.js';
import type { WaitDeps } from './wait.js';

/** What the MCP server needs: the features whose operations its tools call, and its own parts. */
export type McpDeps = AlertsDeps &
  SubscriptionsDeps &
  ScenariosDeps &
  FaultsDeps &
  DeliveriesDeps &
  ReadinessAnswersDeps &
  AccountsDeps &
  WaitDeps &
  HostCheckDeps &
  McpOwnDeps;

interface McpOwnDeps {
  readings: ReadingsService;
  /** /openapi.json's text, for the resource of the same name. */
  openApiDocument: () => string;
  /**
   * The authorization of the account's controls, as /sandbox/* has it (the composition root
   * passes the very middleware /sandbox uses): /mcp is authorized exactly like the controls.
   */
  controlsAuthorization: readonly RequestHandler[];
  /** Where the guides are (docs/ of the package by default). */
  guidesDir?: string;
  /** Told of each tool call refused by a limit (/metrics counts it as it counts the API's). */
  countLimited?: (limit: string) => void;
}

/** One tools/call: who calls, from where, and the signal that ends it when the client goes away. */
export interface ToolCall {
  caller: AuthContext;
  clientAddress: string;
  /** Its IPv6 /48 (ACCOUNT_CREATION_PREFIX_LIMIT), or null for IPv4. */
  clientNetwork: string | null;
  signal: AbortSignal;
}
