import express, { Router, type Express, type RequestHandler } from 'express';

import { accountSandboxRouter, accountsAdminRouter, requireMetricsAccess } from './accounts/index.js';
import { alertsSandboxRouter } from './alerts/index.js';
import { oauthRouter, oauthSandboxRouter, requireAccount } from './auth/index.js';
import { VERSION } from './core/package-info.js';
import { dashboardRouter } from './dashboard/index.js';
import { demoRouter } from './demo/index.js';
import type { Deps } from './deps.js';
import { applyFaults, faultsRouter } from './faults/index.js';
import { baseHeaders } from './http/base-headers.js';
import { errorHandler, notFoundHandler } from './http/error-handler.js';
import { fairShare } from './http/fair-share.js';
import { parseBodies } from './http/json-body.js';
import { operationRouter } from './http/operation.js';
import { rejectMalformedPercentEncoding } from './http/percent-encoding.js';
import { requestLog } from './http/request-log.js';
import { routeTable } from './http/route-table.js';
import { journalRouter, noteErrorBodies, recordInJournal } from './journal/index.js';
import { locationsRouter } from './locations/index.js';
import { mcpRouter } from './mcp/index.js';
import { healthOp, metricsOp, openApiJson, openApiRouter } from './openapi/index.js';
import { readinessSandboxRouter } from './readiness/index.js';
import { readingsRouter } from './readings/index.js';
import { answersARelayCall, relayEndpointRouter, relaySandboxRouter } from './relay/index.js';
import { scenariosSandboxRouter } from './scenarios/index.js';
import { confirmationTokenShown, subscriptionsRouter, subscriptionsSandboxRouter } from './subscriptions/index.js';
import { deliveriesSandboxRouter } from './webhooks/index.js';

/** Request bodies above this many bytes are refused with 413 on every route (documented in docs/configuration.md). */
export const BODY_LIMIT = 100 * 1024;

/**
 * Per-request features a served sandbox always has. `npm run bench` builds apps without them
 * to show what each costs a request; nothing else turns them off.
 */
export interface AppFeatures {
  /** The request journal of each account (GET /sandbox/requests), and what reads it. */
  journal: boolean;
  /** The readiness report's evidence, folded from the journal as it fills. */
  readinessEvidence: boolean;
}

const EVERY_FEATURE: AppFeatures = { journal: true, readinessEvidence: true };

/** The whole sandbox as an Express app, with no listening: server.ts listens, tests use supertest. */
export function createApp(deps: Deps, features: AppFeatures = EVERY_FEATURE): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Behind a proxy on a private network (compose, a load balancer), the client's address comes from X-Forwarded-For.
  app.set('trust proxy', 'loopback, linklocal, uniquelocal');
  noteErrorBodies(app);

  // The app's middleware, before every router.
  const log = requestLog(deps.logger);
  const turns = fairShare(
    { concurrent: deps.config.limits.concurrentRequests, queued: deps.config.limits.queuedRequests },
    {
      laneKind: (req) => (answersARelayCall(req) ? 'relay reply ' : ''),
      onWaiting: deps.metrics.noteWaitingRequests,
    },
  );
  const prelude = [
    baseHeaders,
    rejectMalformedPercentEncoding,
    deps.metrics.requests,
    ...(log ? [log] : []),
    ...(turns ? [turns] : []),
    parseBodies({ limitBytes: BODY_LIMIT, jsonOnlyUnder: ['/v1', '/sandbox', '/relay', '/mcp'] }),
  ];

  const journal: RequestHandler = features.journal
    ? recordInJournal({ ...deps, ...(features.readinessEvidence ? { onAppend: deps.readiness.noteActivity } : {}) })
    : (_req, _res, next) => next();
  // The API's middleware: the journal first, since it also records a request whose expired token of the account is refused.
  const v1Chain = [journal, requireAccount(deps, 'api'), applyFaults(deps)];
  const v1Routers = [locationsRouter(deps), subscriptionsRouter(deps), readingsRouter(deps)];
  // A /v1 request that matches a route runs the same middleware and route without walking the routers (see routeTable).
  const table = routeTable({ mount: '/v1', prelude, chain: v1Chain, routers: v1Routers });
  app.use(table);
  table.inFront(app);
  app.use(prelude);

  // The API first: a /v1 request then meets no layer of the other hosts' routers on its way.
  const v1 = Router({ strict: true });
  v1.use(v1Chain);
  for (const router of v1Routers) v1.use(router);
  app.use('/v1', v1);

  const sandbox = Router({ strict: true });
  sandbox.use(accountsAdminRouter(deps));
  // The controls: the account's key and its own tokens only (an allowed app's token reaches /v1 alone).
  // The same authorization guards the MCP server (/mcp).
  const controlsAuthorization = [requireAccount(deps)];
  sandbox.use(controlsAuthorization);
  sandbox.use(journal);
  sandbox.use(accountSandboxRouter(deps));
  sandbox.use(journalRouter(deps));
  sandbox.use(faultsRouter(deps));
  sandbox.use(subscriptionsSandboxRouter(deps));
  sandbox.use(oauthSandboxRouter(deps));
  sandbox.use(alertsSandboxRouter(deps));
  sandbox.use(
    deliveriesSandboxRouter({
      ...deps,
      confirmationTokenHidden: (accountId, target) => !confirmationTokenShown(deps, accountId, target),
    }),
  );
  sandbox.use(scenariosSandboxRouter(deps));
  sandbox.use(readinessSandboxRouter(deps));
  sandbox.use(relaySandboxRouter(deps));
  app.use('/sandbox', sandbox);

  // The service routes (health, metrics, the API description) after the API: /v1 and /sandbox never meet their layers.
  const service = operationRouter('');
  service.handle(healthOp, async (_input, _req, res) => {
    const health = await deps.store.health();
    if (!health.ok) res.set('Retry-After', '1');
    // How the CLI knows that `listen` must not share the demo account's relay with strangers.
    res.set('X-Sandbox-Hosted', String(deps.config.hosted));
    res.status(health.ok ? 200 : 503).json({
      status: health.ok ? 'ok' : 'unavailable',
      version: VERSION,
      store: deps.store.backend,
      ...(health.ok ? {} : { reason: health.reason }),
    });
  });
  service.handle(
    metricsOp,
    async (_input, _req, res) => {
      const { contentType, body } = await deps.metrics.render();
      res.set('Content-Type', contentType).send(body);
    },
    requireMetricsAccess(deps),
  );
  app.use(service.done());
  app.use(openApiRouter({ urls: deps.urls, version: VERSION }));
  app.use(oauthRouter(deps, journal));
  // A relay endpoint called over HTTP (by hand, with the owning account's credentials).
  app.use('/relay', requireAccount(deps), relayEndpointRouter(deps));
  // The MCP server for coding agents, authorized exactly like the controls.
  app.use(
    mcpRouter({
      ...deps,
      controlsAuthorization,
      confirmationTokenHidden: (accountId, target) => !confirmationTokenShown(deps, accountId, target),
      openApiDocument: openApiJson({ urls: deps.urls, version: VERSION }),
      countLimited: deps.metrics.countLimited,
    }),
  );

  app.use(dashboardRouter(deps));
  app.use(demoRouter(deps));

  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger, deps.metrics.countLimited));
  return app;
}
