import { Router, type RequestHandler } from 'express';

import { secretsEqual } from '../auth/index.js';
import { accountNowMs } from '../clock/index.js';
import { invalidParameter, notFound } from '../core/errors.js';
import type { Ids } from '../core/ids.js';
import { authOf } from '../http/request-context.js';
import { allowOnly, queryString } from '../http/routing.js';
import { readBearerCredential, refusedCredentials } from '../http/www-authenticate.js';
import { presentLocation } from '../locations/index.js';
import { generateAccount } from './generate.js';
import { resetAccount, resetAllAccounts, type LifecycleDeps } from './lifecycle.js';

const DEFAULT_ADMIN_PAGE = 100;
const MAX_ADMIN_PAGE = 1000;

export interface AccountsDeps extends LifecycleDeps {
  ids: Ids;
  config: LifecycleDeps['config'] & { readonly seed: number; readonly adminToken: string | null };
}

const MAX_GENERATED_LOCATIONS = 10;

function objectBody(body: unknown, allowed: string[], example: string): Record<string, unknown> {
  if (body === undefined) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidParameter('body', `The request body must be a JSON object such as ${example}`);
  const unknown = Object.keys(body).filter((k) => !allowed.includes(k));
  if (unknown.length > 0) throw invalidParameter(unknown[0]!, `Unknown field ${JSON.stringify(unknown[0])}; allowed: ${allowed.join(', ')}`);
  return body as Record<string, unknown>;
}

function wholeNumber(body: Record<string, unknown>, name: string, min: number, max: number): number | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalidParameter(name, `${name} must be a whole number from ${min} to ${max}; got ${JSON.stringify(value)}`);
  }
  return value;
}

/** Global operations: open when ADMIN_TOKEN is unset, otherwise they need `Authorization: Bearer $ADMIN_TOKEN`. */
export function requireAdmin(deps: Pick<AccountsDeps, 'config'>): RequestHandler {
  return (req, _res, next) => {
    const token = deps.config.adminToken;
    if (token === null) return next();
    if (!secretsEqual(readBearerCredential(req.headers.authorization, 'Authorization: Bearer <ADMIN_TOKEN>'), token)) {
      throw refusedCredentials('invalid_credentials', 'The admin token is not valid');
    }
    next();
  };
}

/** Account creation and the global admin calls: mounted before account authentication. */
export function accountsAdminRouter(deps: AccountsDeps): Router {
  const router = Router({ strict: true });
  const admin = requireAdmin(deps);

  router.post('/accounts', admin, async (req, res) => {
    const body = objectBody(req.body, ['seed', 'locations', 'name'], '{"seed": 7, "locations": 2}');
    const seed = wholeNumber(body, 'seed', 0, 4294967295) ?? deps.config.seed;
    const locationCount = wholeNumber(body, 'locations', 1, MAX_GENERATED_LOCATIONS) ?? 2;
    const name = body['name'];
    if (name !== undefined && (typeof name !== 'string' || name.trim() === '' || name.length > 200)) {
      throw invalidParameter('name', 'name must be a non-empty string of at most 200 characters');
    }
    const { doc, password } = generateAccount({ seed, locationCount, ...(typeof name === 'string' ? { name: name.trim() } : {}) }, deps.ids, deps.clock.now());
    await deps.store.accounts.create(doc);
    const user = doc.users[0]!;
    res.status(201).json({
      accountId: doc.account.accountId,
      name: doc.account.name,
      seed,
      apiKey: doc.apiKeys[0]!.apiKey,
      user: { email: user.email, password },
      locations: doc.locations.map((l) => presentLocation(doc, l)),
    });
  });
  allowOnly(router, '/accounts', ['POST']);

  router.get('/admin/accounts', admin, async (req, res) => {
    const limitText = queryString(req.query, 'limit');
    const after = queryString(req.query, 'after');
    const limit = limitText === undefined ? DEFAULT_ADMIN_PAGE : Number(limitText);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_ADMIN_PAGE) throw invalidParameter('limit', `limit must be a whole number from 1 to ${MAX_ADMIN_PAGE}`);
    const page = await deps.store.accounts.list({ limit, ...(after === undefined ? {} : { after }) });
    const accounts = await Promise.all(
      page.accounts.map(async (a) => {
        const doc = await deps.store.accounts.get(a.accountId);
        return {
          accountId: a.accountId,
          name: a.name,
          origin: a.origin,
          createdAt: a.createdAt,
          lastRequestAt: a.lastSeenMs === null ? null : new Date(a.lastSeenMs).toISOString(),
          locations: doc?.locations.length ?? 0,
          subscriptions: doc?.subscriptions.length ?? 0,
          users: doc?.users.map((u) => u.email) ?? [],
        };
      }),
    );
    res.json({ total: await deps.store.accounts.count(), accounts, next: page.next });
  });
  allowOnly(router, '/admin/accounts', ['GET']);

  router.post('/admin/reset', admin, async (_req, res) => {
    const { accounts } = await resetAllAccounts(deps);
    res.json({ reset: 'all', accounts });
  });
  allowOnly(router, '/admin/reset', ['POST']);

  return router;
}

/** Per-account controls, behind the account's credentials. */
export function accountSandboxRouter(deps: AccountsDeps): Router {
  const router = Router({ strict: true });

  router.post('/reset', async (_req, res) => {
    const { accountId } = authOf(res);
    const doc = await resetAccount(deps.store, accountId);
    res.json({ reset: accountId, locations: doc.locations.map((l) => presentLocation(doc, l)) });
  });
  allowOnly(router, '/reset', ['POST']);

  router.post('/tokens/expire', async (req, res) => {
    const { accountId, doc } = authOf(res);
    const body = objectBody(req.body, ['accessToken'], '{"accessToken": "..."}');
    const only = body['accessToken'];
    if (only !== undefined && typeof only !== 'string') throw invalidParameter('accessToken', 'accessToken must be a string');
    if (only !== undefined && !doc.accessTokens.some((t) => t.accessToken === only)) throw notFound('No such access token in this account');
    const expired = await deps.store.accounts.update(accountId, (d) => {
      const nowMs = accountNowMs(deps.clock, d.clock);
      let count = 0;
      for (const token of d.accessTokens) {
        if (only !== undefined && token.accessToken !== only) continue;
        if (Date.parse(token.expiresAt) > nowMs) {
          token.expiresAt = new Date(nowMs).toISOString();
          count++;
        }
      }
      return count;
    });
    res.json({ expired });
  });
  allowOnly(router, '/tokens/expire', ['POST']);

  return router;
}
