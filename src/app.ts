import express, { Router, type Express } from 'express';

import { accountSandboxRouter, accountsAdminRouter, requireAdmin } from './accounts/index.js';
import { alertsSandboxRouter } from './alerts/index.js';
import { oauthRouter, oauthSandboxRouter, requireAccount } from './auth/index.js';
import { VERSION } from './core/package-info.js';
import { dashboardRouter } from './dashboard/index.js';
import type { Deps } from './deps.js';
import { applyFaults, faultsRouter } from './faults/index.js';
import { baseHeaders } from './http/base-headers.js';
import { errorHandler, notFoundHandler } from './http/error-handler.js';
import { parseBodies } from './http/json-body.js';
import { operationRouter } from './http/operation.js';
import { rejectMalformedPercentEncoding } from './http/percent-encoding.js';
import { requestLog } from './http/request-log.js';
import { journalRouter, noteErrorBodies, recordInJournal } from './journal/index.js';
import { locationsRouter } from './locations/index.js';
import { healthOp, metricsOp, openApiRouter } from './openapi/index.js';
import { readinessSandboxRouter } from './readiness/index.js';
import { readingsRouter } from './readings/index.js';
import { relayEndpointRouter, relaySandboxRouter } from './relay/index.js';
import { scenariosSandboxRouter } from './scenarios/index.js';
import { confirmationTokenShown, subscriptionsRouter, subscriptionsSandboxRouter } from './subscriptions/index.js';
import { deliveriesSandboxRouter } from './webhooks/index.js';

/** Request bodies above this many bytes are refused with 413 on every route (documented in docs/configuration.md). */
export const BODY_LIMIT = 100 * 1024;

/** The whole sandbox as an Express app, with no listening: server.ts listens, tests use supertest. */
export function createApp(deps: Deps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Behind a proxy on a private network (compose, a load balancer), the client's address comes from X-Forwarded-For.
  app.set('trust proxy', 'loopback, linklocal, uniquelocal');
  noteErrorBodies(app);

  app.use(baseHeaders);
  app.use(rejectMalformedPercentEncoding);
  app.use(deps.metrics.requests);
  const log = requestLog(deps.logger);
  if (log) app.use(log);
  app.use(parseBodies({ limitBytes: BODY_LIMIT, jsonOnlyUnder: ['/v1', '/sandbox', '/relay'] }));

  // The API first: a /v1 request then meets no layer of the other hosts' routers on its way.
  const journal = recordInJournal({ ...deps, onAppend: deps.readiness.noteActivity });
  const v1 = Router({ strict: true });
  // The journal first: it also records a request whose expired token of the account is refused.
  v1.use(journal);
  v1.use(requireAccount(deps));
  v1.use(applyFaults(deps));
  v1.use(locationsRouter(deps));
  v1.use(subscriptionsRouter(deps));
  v1.use(readingsRouter(deps));
  app.use('/v1', v1);

  const sandbox = Router({ strict: true });
  sandbox.use(accountsAdminRouter(deps));
  sandbox.use(requireAccount(deps));
  sandbox.use(journal);
  sandbox.use(accountSandboxRouter(deps));
  sandbox.use(journalRouter(deps));
  sandbox.use(faultsRouter(deps));
  sandbox.use(subscriptionsSandboxRouter(deps));
  sandbox.use(oauthSandboxRouter(deps));
  sandbox.use(alertsSandboxRouter(deps));
  sandbox.use(deliveriesSandboxRouter({ ...deps, confirmationTokenHidden: (accountId, target) => !confirmationTokenShown(deps, accountId, target) }));
  sandbox.use(scenariosSandboxRouter(deps));
  sandbox.use(readinessSandboxRouter(deps));
  sandbox.use(relaySandboxRouter(deps));
  app.use('/sandbox', sandbox);

  // The service routes (health, metrics, the API description) after the API: /v1 and /sandbox never meet their layers.
  const service = operationRouter('');
  service.handle(healthOp, async (_input, _req, res) => {
    const health = await deps.store.health();
    if (!health.ok) res.set('Retry-After', '1');
    res.status(health.ok ? 200 : 503).json({ status: health.ok ? 'ok' : 'unavailable', version: VERSION, store: deps.store.backend, ...(health.ok ? {} : { reason: health.reason }) });
  });
  service.handle(
    metricsOp,
    async (_input, _req, res) => {
      const { contentType, body } = await deps.metrics.render();
      res.set('Content-Type', contentType).send(body);
    },
    requireAdmin(deps),
  );
  app.use(service.done());
  app.use(openApiRouter({ urls: deps.urls, version: VERSION }));
  app.use(oauthRouter(deps, journal));
  // A relay endpoint called over HTTP (by hand, with the owning account's credentials).
  app.use('/relay', requireAccount(deps), relayEndpointRouter(deps));

  app.use(dashboardRouter(deps));

  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger, deps.metrics.countLimited));
  return app;
}
