import type { RequestHandler, Router } from 'express';

import { secretsEqual } from '../auth/index.js';
import { accountNowMs } from '../clock/index.js';
import { notFound } from '../core/errors.js';
import type { Ids } from '../core/ids.js';
import { operationRouter } from '../http/operation.js';
import { authOf } from '../http/request-context.js';
import { readBearerCredential, refusedCredentials } from '../http/www-authenticate.js';
import { presentLocation } from '../locations/index.js';
import { IndexConflictError } from '../store/store.js';
import { generateAccount, type GeneratedAccount } from './generate.js';
import { resetAccount, resetAllAccounts, type LifecycleDeps } from './lifecycle.js';
import { createAccountOp, DEFAULT_ADMIN_PAGE, expireTokensOp, listAccountsOp, resetAccountOp, resetAllOp } from './operations.js';

export interface AccountsDeps extends LifecycleDeps {
  ids: Ids;
  config: LifecycleDeps['config'] & { readonly seed: number; readonly adminToken: string | null };
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

const CREATE_ATTEMPTS = 3;

/** Generates and stores an account; a random e-mail, key or id that is taken already is made again. */
async function createGeneratedAccount(deps: AccountsDeps, input: Parameters<typeof generateAccount>[0]): Promise<GeneratedAccount> {
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

/** Account creation and the global admin calls: mounted before account authentication. */
export function accountsAdminRouter(deps: AccountsDeps): Router {
  const api = operationRouter('/sandbox');
  const admin = requireAdmin(deps);

  api.handle(
    createAccountOp,
    async ({ body }, _req, res) => {
      const { seed = deps.config.seed, locations: locationCount = 2, name } = body();
      const { doc, password } = await createGeneratedAccount(deps, { seed, locationCount, ...(name === undefined ? {} : { name }) });
      const user = doc.users[0]!;
      res.status(201).json({
        accountId: doc.account.accountId,
        name: doc.account.name,
        seed,
        apiKey: doc.apiKeys[0]!.apiKey,
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
    admin,
  );

  api.handle(
    resetAllOp,
    async (_input, _req, res) => {
      const { accounts } = await resetAllAccounts(deps);
      res.json({ reset: 'all', accounts });
    },
    admin,
  );

  return api.done();
}

/** Per-account controls, behind the account's credentials. */
export function accountSandboxRouter(deps: AccountsDeps): Router {
  const api = operationRouter('/sandbox');

  api.handle(resetAccountOp, async (_input, _req, res) => {
    const { accountId } = authOf(res);
    const doc = await resetAccount(deps.store, accountId);
    res.json({ reset: accountId, locations: doc.locations.map((l) => presentLocation(doc, l)) });
  });

  api.handle(expireTokensOp, async ({ body }, _req, res) => {
    const { accountId, doc } = authOf(res);
    const { accessToken: only } = body();
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

  return api.done();
}
