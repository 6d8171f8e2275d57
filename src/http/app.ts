import express, { Router, type Express } from 'express';

import { accountSandboxRouter, accountsAdminRouter } from '../accounts/routes.js';
import { alertsSandboxRouter } from '../alerts/routes.js';
import { requireAccount } from '../auth/authenticate.js';
import { oauthRouter, oauthSandboxRouter } from '../auth/oauth-routes.js';
import { dashboardRouter } from '../dashboard/routes.js';
import type { Deps } from '../deps.js';
import { applyFaults } from '../faults/faults.js';
import { faultsRouter } from '../faults/routes.js';
import { requestLogger } from '../journal/journal.js';
import { journalRouter } from '../journal/routes.js';
import { locationsRouter } from '../locations/routes.js';
import { readingsRouter } from '../readings/routes.js';
import { scenariosSandboxRouter } from '../scenarios/routes.js';
import { subscriptionsRouter, subscriptionsSandboxRouter } from '../subscriptions/routes.js';
import { errorHandler, notFoundHandler } from './error-handler.js';
import { parseBodies } from './json-body.js';
import { rejectMalformedPercentEncoding } from './percent-encoding.js';

/** Request bodies above this are refused with 413 (documented in the README). */
export const BODY_LIMIT = '100kb';

/** The whole sandbox as an Express app, with no listening: main.ts listens, tests use supertest. */
export function createApp(deps: Deps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.use(requestLogger(deps));
  app.use(rejectMalformedPercentEncoding);
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.use(parseBodies({ limit: BODY_LIMIT, jsonOnlyUnder: ['/v1', '/sandbox'] }));

  app.use(oauthRouter(deps));

  const v1 = Router({ strict: true });
  v1.use(requireAccount(deps));
  v1.use(applyFaults(deps));
  v1.use(locationsRouter(deps));
  v1.use(subscriptionsRouter(deps));
  v1.use(readingsRouter(deps));
  app.use('/v1', v1);

  const sandbox = Router({ strict: true });
  sandbox.use(accountsAdminRouter(deps));
  sandbox.use(requireAccount(deps));
  sandbox.use(accountSandboxRouter(deps));
  sandbox.use(journalRouter(deps));
  sandbox.use(faultsRouter(deps));
  sandbox.use(subscriptionsSandboxRouter(deps));
  sandbox.use(oauthSandboxRouter(deps));
  sandbox.use(alertsSandboxRouter(deps));
  sandbox.use(scenariosSandboxRouter(deps));
  app.use('/sandbox', sandbox);

  app.use(dashboardRouter(deps));

  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
