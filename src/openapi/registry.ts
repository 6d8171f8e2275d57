import { z } from 'zod';

import { accountsOperations } from '../accounts/index.js';
import { AlertNotification, alertsOperations, PublicAlert } from '../alerts/index.js';
import { authOperations } from '../auth/index.js';
import { demoOperations } from '../demo/index.js';
import { faultsOperations } from '../faults/index.js';
import { operationsTagged, type Operation } from '../http/operation.js';
import { ErrorBody, OAuthErrorBody } from '../http/schemas.js';
import { journalOperations } from '../journal/index.js';
import { Device, Location, locationsOperations } from '../locations/index.js';
import { McpErrorBody, mcpOperations } from '../mcp/index.js';
import { readinessOperations, ReadinessReportSchema } from '../readiness/index.js';
import { ReadingsEnvelope, readingsOperations, UsageSummary } from '../readings/index.js';
import { relayOperations } from '../relay/index.js';
import { scenariosOperations } from '../scenarios/index.js';
import { Subscription, subscriptionsOperations } from '../subscriptions/index.js';
import { Delivery, webhooksOperations } from '../webhooks/index.js';

const serviceOperation = operationsTagged('Sandbox: service', 'none');

/** Mounted by the composition root. */
export const healthOp = serviceOperation('health', 'GET /healthz', {
  summary: 'Whether the sandbox is ready',
  responses: {
    200: {
      description: 'Ready.',
      headers: {
        'X-Sandbox-Hosted':
          '`true` when the sandbox is hosted (its PUBLIC_URL is not loopback), else `false`: `water-sandbox listen` then refuses the shared demo key.',
      },
      schema: z.strictObject({
        status: z.literal('ok'),
        version: z.string(),
        store: z.enum(['lowdb', 'memory', 'redis']),
      }),
    },
    503: {
      description:
        'Not ready: `starting` while the store connects or the fixtures load, `unavailable` when the store is not reachable (Redis down). Every other request is then answered 503 `service_unavailable` with Retry-After.',
      headers: { 'Retry-After': 'Seconds to wait.' },
      schema: z.strictObject({
        status: z.enum(['starting', 'unavailable']),
        version: z.string(),
        store: z.enum(['lowdb', 'memory', 'redis']),
        reason: z.string(),
      }),
    },
  },
});

/** Mounted by the composition root. */
export const metricsOp = serviceOperation('metrics', 'GET /metrics', {
  summary: 'Prometheus metrics of this replica',
  description:
    "Requests by route and status, webhook attempts, the due-delivery queue, accounts and store latency, in the Prometheus text format. Each replica answers for itself; the queue and account gauges are the shared store's. Open on a local sandbox without ADMIN_TOKEN; otherwise it needs the ADMIN_TOKEN (off on a hosted sandbox without one), unless METRICS_OPEN=true.",
  guard: 'admin',
  responses: { 200: { description: 'The metrics.', plainText: true } },
  errors: {
    403: 'admin_disabled: a hosted sandbox (PUBLIC_URL not loopback) without ADMIN_TOKEN keeps its metrics off, unless METRICS_OPEN=true.',
  },
});

export const openApiOp = serviceOperation('openApiDocument', 'GET /openapi.json', {
  summary: 'This document',
  description:
    "OpenAPI 3.1, generated at start-up from the zod schemas that validate the requests, with this sandbox's PUBLIC_URL as its server.",
  responses: { 200: { description: 'The OpenAPI document.', schema: z.looseObject({ openapi: z.literal('3.1.0') }) } },
});

export const docsOp = serviceOperation('apiDocs', 'GET /docs', {
  summary: 'Interactive reference of this document',
  description: 'Swagger UI, served from this sandbox (no CDN): works offline.',
  responses: { 200: { description: 'The page.', html: true } },
  // People type /docs/ as often as /docs.
  trailingSlash: true,
});

/**
 * Every operation of the sandbox, in the order of the document. A feature's new route goes in
 * its own operations list; a new feature adds its list here (the route-coverage test fails
 * until it does).
 */
export const ALL_OPERATIONS: readonly Operation[] = [
  ...locationsOperations,
  ...subscriptionsOperations,
  ...readingsOperations,
  ...authOperations,
  ...accountsOperations,
  ...journalOperations,
  ...faultsOperations,
  ...alertsOperations,
  ...webhooksOperations,
  ...scenariosOperations,
  ...readinessOperations,
  ...relayOperations,
  ...demoOperations,
  ...mcpOperations,
  healthOp,
  metricsOp,
  openApiOp,
  docsOp,
] as readonly Operation[];

/** Schemas shown under their own name in components.schemas (others get their operation's name). */
export const NAMED_SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  Error: ErrorBody,
  OAuthError: OAuthErrorBody,
  Location,
  Device,
  Alert: PublicAlert,
  AlertNotification,
  Subscription,
  WaterUsage: ReadingsEnvelope,
  WaterUsageSummary: UsageSummary,
  Delivery,
  ReadinessReport: ReadinessReportSchema,
  McpError: McpErrorBody,
};
