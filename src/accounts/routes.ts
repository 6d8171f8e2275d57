import type { RequestHandler, Router } from 'express';

import { expireAccessTokens, secretsEqual, tokenClocks } from '../auth/index.js';
import { AppError, notFound } from '../core/errors.js';
import { clientAddressKey, clientNetworkKey } from '../http/client-address.js';
import { operationRouter } from '../http/operation.js';
import { authOf } from '../http/request-context.js';
import { readBearerCredential, refusedCredentials } from '../http/www-authenticate.js';
import { createAccountAnswer, resetAccountAnswer, type AccountsDeps } from './answers.js';
import { resetAllAccounts } from './lifecycle.js';
import {
  createAccountOp,
  DEFAULT_ADMIN_PAGE,
  expireTokensOp,
  listAccountsOp,
  resetAccountOp,
  resetAllOp,
} from './operations.js';

/** Global operations: open when ADMIN_TOKEN is unset, otherwise they need `Authorization: Bearer $ADMIN_TOKEN`. */
export function requireAdmin(deps: Pick<AccountsDeps, 'config'>): RequestHandler {
  return (req, _res, next) => {
    const token = deps.config.adminToken;
    if (token === null) {
      next();
      return;
    }
    if (!secretsEqual(readBearerCredential(req.headers.authorization, 'Authorization: Bearer <ADMIN_TOKEN>'), token)) {
      throw refusedCredentials('invalid_credentials', 'The admin token is not valid');
    }
    next();
  };
}

/**
 * The global admin calls (every account listed, every account reset): behind ADMIN_TOKEN when it
 * is set; open on a local sandbox without it; off on a hosted one without it, where anyone could
 * otherwise reset every partner's account.
 */
function requireAdminOperation(deps: Pick<AccountsDeps, 'config'>): RequestHandler {
  const admin = requireAdmin(deps);
  return (req, res, next) => {
    if (deps.config.adminToken === null && deps.config.hosted) {
      throw new AppError(
        403,
        'admin_disabled',
        'This sandbox is hosted (its PUBLIC_URL is not loopback) and has no ADMIN_TOKEN, so its global admin operations are off; its operator can set ADMIN_TOKEN to use them',
        {
          headers: { 'WWW-Authenticate': 'Bearer realm="water-sandbox"' },
        },
      );
    }
    admin(req, res, next);
  };
}

/**
 * /metrics (account counts, traffic by route): open where METRICS_OPEN says so (by default a
 * local sandbox without ADMIN_TOKEN), otherwise behind ADMIN_TOKEN, and off while it is unset: a
 * hosted sandbox does not show strangers its traffic.
 */
export function requireMetricsAccess(deps: Pick<AccountsDeps, 'config'>): RequestHandler {
  if (deps.config.metricsOpen) return (_req, _res, next) => next();
  const admin = requireAdmin(deps);
  return (req, res, next) => {
    if (deps.config.adminToken === null) {
      throw new AppError(
        403,
        'admin_disabled',
        'The metrics of this sandbox are off: it is hosted (its PUBLIC_URL is not loopback) and has no ADMIN_TOKEN; its operator can set ADMIN_TOKEN (then send it as a Bearer token) or METRICS_OPEN=true',
        { headers: { 'WWW-Authenticate': 'Bearer realm="water-sandbox"' } },
      );
    }
    admin(req, res, next);
  };
}

/** Account creation and the global admin calls: mounted before account authentication. */
export function accountsAdminRouter(deps: AccountsDeps): Router {
  const api = operationRouter('/sandbox');
  const admin = requireAdmin(deps);
  const adminOperation = requireAdminOperation(deps);

  api.handle(
    createAccountOp,
    async ({ body }, req, res) => {
      res.status(201).json(await createAccountAnswer(deps, body(), clientAddressKey(req), clientNetworkKey(req)));
    },
    admin,
  );

  api.handle(
    listAccountsOp,
    async ({ query }, _req, res) => {
      const { limit = DEFAULT_ADMIN_PAGE, after } = query();
      const page = await deps.store.accounts.list({ limit, ...(after === undefined ? {} : { after }) });
      const listed = await Promise.all(
        page.accounts.map(async (a) => {
          // Null for an account deleted meanwhile, or past its lifetime and not yet swept away: gone for every client.
          const doc = await deps.store.accounts.get(a.accountId);
          return (
            doc && {
              accountId: a.accountId,
              name: a.name,
              origin: a.origin,
              createdAt: a.createdAt,
              lastRequestAt: a.lastSeenMs === null ? null : new Date(a.lastSeenMs).toISOString(),
              locations: doc.locations.length,
              subscriptions: doc.subscriptions.length,
              users: doc.users.map((u) => u.email),
            }
          );
        }),
      );
      const accounts = listed.filter((a) => a !== null);
      res.json({ total: await deps.store.accounts.count(), accounts, next: page.next });
    },
    adminOperation,
  );

  api.handle(
    resetAllOp,
    async (_input, _req, res) => {
      const { accounts } = await resetAllAccounts(deps);
      res.json({ reset: 'all', accounts });
    },
    adminOperation,
  );

  return api.done();
}

/** Per-account controls, behind the account's credentials. */
export function accountSandboxRouter(deps: AccountsDeps): Router {
  const api = operationRouter('/sandbox');

  api.handle(resetAccountOp, async (_input, _req, res) => {
    res.json(await resetAccountAnswer(deps, authOf(res).accountId));
  });

  api.handle(expireTokensOp, async ({ body }, _req, res) => {
    const { accountId, doc } = authOf(res);
    const { accessToken: only } = body();
    if (only !== undefined && !doc.accessTokens.some((t) => t.accessToken === only))
      throw notFound('No such access token in this account');
    const expired = await deps.store.accounts.update(accountId, (d) =>
      expireAccessTokens(d, tokenClocks(deps.clock, d.clock), (t) => only === undefined || t.accessToken === only),
    );
    res.json({
      expired,
      refreshTokens:
        "Unchanged: clients get new access tokens with their refresh tokens (POST /oauth2/token, grant_type=refresh_token). To end an application's access, revoke it: DELETE /sandbox/connected-apps/{clientId} (another account's), DELETE /sandbox/oauth-clients/{clientId} (the account's own).",
    });
  });

  return api.done();
}
