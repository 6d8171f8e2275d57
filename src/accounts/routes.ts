import { Router, type RequestHandler } from 'express';

import { invalidParameter, notFound } from '../core/errors.js';
import type { Deps } from '../deps.js';
import { authOf } from '../http/request-context.js';
import { allowOnly } from '../http/routing.js';
import { readBearerCredential, refusedCredentials } from '../http/www-authenticate.js';
import { presentLocation } from '../locations/presenter.js';
import { buildInitialData } from './initial-state.js';
import { generateAccount } from './generate.js';
import { resetAccountState } from './reset.js';

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
function requireAdmin(deps: Deps): RequestHandler {
  return (req, _res, next) => {
    const token = deps.config.adminToken;
    if (token === null) return next();
    if (readBearerCredential(req.headers.authorization, 'Authorization: Bearer <ADMIN_TOKEN>') !== token) {
      throw refusedCredentials('invalid_credentials', 'The admin token is not valid');
    }
    next();
  };
}

/** Account creation and the global admin calls: mounted before account authentication. */
export function accountsAdminRouter(deps: Deps): Router {
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
    const generated = await generateAccount({ seed, locationCount, ...(typeof name === 'string' ? { name: name.trim() } : {}) }, deps.ids, deps.clock.now());
    const locations = await deps.store.write((d) => {
      d.accounts.push(generated.account);
      d.users.push(generated.user);
      d.apiKeys.push(generated.apiKey);
      d.locations.push(...structuredClone(generated.account.initialLocations));
      return d.locations.filter((l) => l.accountId === generated.account.accountId).map((l) => presentLocation(d, l));
    });
    res.status(201).json({
      accountId: generated.account.accountId,
      name: generated.account.name,
      seed,
      apiKey: generated.apiKey.apiKey,
      user: { email: generated.user.email, password: generated.password },
      locations,
    });
  });
  allowOnly(router, '/accounts', ['POST']);

  router.get('/admin/accounts', admin, (_req, res) => {
    const accounts = deps.store.read((d) =>
      d.accounts.map((a) => ({
        accountId: a.accountId,
        name: a.name,
        origin: a.origin,
        createdAt: a.createdAt,
        locations: d.locations.filter((l) => l.accountId === a.accountId).length,
        subscriptions: d.subscriptions.filter((s) => s.accountId === a.accountId).length,
        users: d.users.filter((u) => u.accountId === a.accountId).map((u) => u.email),
      })),
    );
    res.json({ accounts });
  });
  allowOnly(router, '/admin/accounts', ['GET']);

  router.post('/admin/reset', admin, async (_req, res) => {
    const fresh = await buildInitialData(deps.fixtures, deps.clock.now());
    await deps.store.write((d) => {
      Object.assign(d, fresh);
    });
    res.json({ reset: 'all', accounts: fresh.accounts.length });
  });
  allowOnly(router, '/admin/reset', ['POST']);

  return router;
}

/** Per-account controls, behind the account's credentials. */
export function accountSandboxRouter(deps: Deps): Router {
  const router = Router({ strict: true });

  router.post('/reset', async (_req, res) => {
    const { accountId } = authOf(res);
    const locations = await deps.store.write((d) => {
      resetAccountState(d, accountId);
      return d.locations.filter((l) => l.accountId === accountId).map((l) => presentLocation(d, l));
    });
    res.json({ reset: accountId, locations });
  });
  allowOnly(router, '/reset', ['POST']);

  router.post('/tokens/expire', async (req, res) => {
    const { accountId } = authOf(res);
    const body = objectBody(req.body, ['accessToken'], '{"accessToken": "..."}');
    const only = body['accessToken'];
    if (only !== undefined && typeof only !== 'string') throw invalidParameter('accessToken', 'accessToken must be a string');
    const nowMs = deps.clocks.now(accountId).getTime();
    if (only !== undefined && !deps.store.read((d) => d.accessTokens.some((t) => t.accessToken === only && t.accountId === accountId))) {
      throw notFound('No such access token in this account');
    }
    const expired = await deps.store.write((d) => {
      let count = 0;
      for (const token of d.accessTokens) {
        if (token.accountId !== accountId || (only !== undefined && token.accessToken !== only)) continue;
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
