import type { RequestHandler, Router } from 'express';

import { expireAccessTokens, secretsEqual, tokenClocks } from '../auth/index.js';
import { AppError, capReached, notFound, present, rateLimited } from '../core/errors.js';
import type { Ids } from '../core/ids.js';
import { clientAddressKey } from '../http/client-address.js';
import { operationRouter } from '../http/operation.js';
import { authOf } from '../http/request-context.js';
import { readBearerCredential, refusedCredentials } from '../http/www-authenticate.js';
import { presentLocation } from '../locations/index.js';
import { IndexConflictError } from '../store/store.js';
import { generateAccount, type GeneratedAccount } from './generate.js';
import { resetAccount, resetAllAccounts, type LifecycleDeps } from './lifecycle.js';
import {
  createAccountOp,
  DEFAULT_ADMIN_PAGE,
  expireTokensOp,
  listAccountsOp,
  resetAccountOp,
  resetAllOp,
} from './operations.js';

export interface AccountsDeps extends LifecycleDeps {
  ids: Ids;
  config: LifecycleDeps['config'] & {
    readonly seed: number;
    readonly adminToken: string | null;
    readonly hosted: boolean;
    readonly limits: { readonly accountCreationsPerHour: number; readonly locationsPerAccount: number };
  };
}

const CREATION_WINDOW_MS = 3_600_000;

/**
 * ACCOUNT_CREATION_LIMIT: while account creation is open (no ADMIN_TOKEN), each client address
 * may create this many accounts per hour (fixed windows of the process clock, counted in the
 * store, so one limit across replicas); 0 = none.
 */
async function checkCreationRate(deps: AccountsDeps, address: string): Promise<void> {
  const limit = deps.config.limits.accountCreationsPerHour;
  if (limit === 0 || deps.config.adminToken !== null) return;
  const nowMs = deps.clock.now().getTime();
  const window = Math.floor(nowMs / CREATION_WINDOW_MS);
  const count = await deps.store.counters.increment(`account-create:${address}:${window}`, CREATION_WINDOW_MS);
  if (count <= limit) return;
  const retryAfter = Math.max(1, Math.ceil(((window + 1) * CREATION_WINDOW_MS - nowMs) / 1000));
  throw rateLimited(
    'ACCOUNT_CREATION_LIMIT',
    `Too many accounts created from this address: this sandbox allows ${limit} an hour (ACCOUNT_CREATION_LIMIT=${limit}); try again in ${retryAfter} s, or ask its operator for the ADMIN_TOKEN`,
    retryAfter,
  );
}

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

const CREATE_ATTEMPTS = 3;

/** Generates and stores an account; a random e-mail, key or id that is taken already is made again. */
async function createGeneratedAccount(
  deps: AccountsDeps,
  input: Parameters<typeof generateAccount>[0],
): Promise<GeneratedAccount> {
  for (let attempt = 1; ; attempt++) {
    const generated = generateAccount(input, deps.ids, deps.clock.now());
    try {
      await deps.store.accounts.create(generated.doc);
      return generated;
    } catch (error) {
      if (!(error instanceof IndexConflictError) || attempt === CREATE_ATTEMPTS) throw error;
    }
  }
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

/** Account creation and the global admin calls: mounted before account authentication. */
export function accountsAdminRouter(deps: AccountsDeps): Router {
  const api = operationRouter('/sandbox');
  const admin = requireAdmin(deps);
  const adminOperation = requireAdminOperation(deps);

  api.handle(
    createAccountOp,
    async ({ body }, req, res) => {
      const {
        seed = deps.config.seed,
        locations: locationCount = Math.min(2, deps.config.limits.locationsPerAccount),
        name,
      } = body();
      const cap = deps.config.limits.locationsPerAccount;
      if (locationCount > cap) {
        throw capReached(
          'MAX_LOCATIONS_PER_ACCOUNT',
          `locations must be at most ${cap} on this sandbox (MAX_LOCATIONS_PER_ACCOUNT=${cap}); got ${locationCount}`,
          'locations',
        );
      }
      await checkCreationRate(deps, clientAddressKey(req));
      const { doc, password } = await createGeneratedAccount(deps, {
        seed,
        locationCount,
        ...(name === undefined ? {} : { name }),
      });
      const user = present(doc.users[0], 'the generated user');
      res.status(201).json({
        accountId: doc.account.accountId,
        name: doc.account.name,
        seed,
        apiKey: present(doc.apiKeys[0], 'the generated API key').apiKey,
        user: { email: user.email, password },
        locations: doc.locations.map((l) => presentLocation(doc, l)),
      });
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
    const { accountId } = authOf(res);
    const doc = await resetAccount(deps, accountId);
    res.json({ reset: accountId, locations: doc.locations.map((l) => presentLocation(doc, l)) });
  });

  api.handle(expireTokensOp, async ({ body }, _req, res) => {
    const { accountId, doc } = authOf(res);
    const { accessToken: only } = body();
    if (only !== undefined && !doc.accessTokens.some((t) => t.accessToken === only))
      throw notFound('No such access token in this account');
    const expired = await deps.store.accounts.update(accountId, (d) =>
      expireAccessTokens(d, tokenClocks(deps.clock, d.clock), (t) => only === undefined || t.accessToken === only),
    );
    res.json({ expired });
  });

  return api.done();
}
