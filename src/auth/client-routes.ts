import type { Router } from 'express';

import { accountNowMs } from '../clock/index.js';
import { type AppError, conflict, notFound } from '../core/errors.js';
import { operationRouter } from '../http/operation.js';
import { authOf } from '../http/request-context.js';
import { IndexConflictError } from '../store/store.js';
import { RESERVED_CLIENT_IDS } from './authenticate.js';
import { ensureRoomForClient, removeClient } from './client-removal.js';
import { findClient } from './clients.js';
import { presentConnectedApps, revokeApps } from './connected-apps.js';
import type { OAuthDeps } from './oauth-deps.js';
import {
  deleteClientOp,
  listClientsOp,
  listConnectedAppsOp,
  registerClientOp,
  revokeConnectedAppOp,
} from './operations.js';
import { clientFromRegistration, parseRegistration, presentRegisteredClient } from './registration.js';

/**
 * /sandbox/oauth-clients: register an OAuth client, list and delete the account's clients.
 * /sandbox/connected-apps: the applications of other accounts its users allowed, and revoking one.
 */
export function oauthSandboxRouter(deps: OAuthDeps): Router {
  const api = operationRouter('/sandbox');

  api.handle(registerClientOp, async (_input, req, res) => {
    const { accountId } = authOf(res);
    // parseRegistration runs registerClientOp's body schema and lists every problem.
    const registration = parseRegistration(req.body);
    const chosenId = registration.clientId;
    if (chosenId !== undefined && RESERVED_CLIENT_IDS.has(chosenId)) {
      throw conflict(
        'client_id_reserved',
        `clientId ${JSON.stringify(chosenId)} is reserved: the sandbox uses it itself; choose another or leave clientId out to get a generated one`,
      );
    }
    const taken = (): AppError =>
      conflict(
        'client_id_taken',
        `A client with clientId ${JSON.stringify(chosenId)} already exists; choose another or leave clientId out to get a generated one`,
      );
    if (chosenId !== undefined && (await findClient(deps, chosenId))) throw taken();
    const clientId = chosenId ?? deps.ids.secret(18);
    const clientSecret = registration.clientSecret ?? deps.ids.secret(32);
    let record;
    try {
      record = await deps.store.accounts.update(accountId, (d) => {
        ensureRoomForClient(d, deps.config.limits.oauthClients);
        const created = clientFromRegistration(registration, {
          clientId,
          clientSecret,
          accountId,
          now: new Date(accountNowMs(deps.clock, d.clock)),
        });
        d.oauthClients.push(created);
        return created;
      });
    } catch (error) {
      // Another account registered the same clientId in the meantime.
      if (error instanceof IndexConflictError) throw taken();
      throw error;
    }
    res.status(201).json(presentRegisteredClient(record));
  });

  api.handle(listClientsOp, (_input, _req, res) => {
    const { doc } = authOf(res);
    res.json({ oauthClients: doc.oauthClients.map((c) => presentRegisteredClient(c)) });
  });

  api.handle(deleteClientOp, async ({ params }, _req, res) => {
    const { accountId } = authOf(res);
    const { clientId } = params;
    const { removedTokens } = await deps.store.accounts.update(accountId, (d) => removeClient(d, clientId));
    res.json({ clientId, removedTokens });
  });

  api.handle(listConnectedAppsOp, (_input, _req, res) => {
    res.json({ connectedApps: presentConnectedApps(authOf(res).doc) });
  });

  api.handle(revokeConnectedAppOp, async ({ params }, _req, res) => {
    const { accountId } = authOf(res);
    const { clientId } = params;
    const outcome = await deps.store.accounts.update(accountId, (d) =>
      revokeApps(d, (id) => id === clientId, new Date(accountNowMs(deps.clock, d.clock)).toISOString()),
    );
    if (outcome.apps === 0 && outcome.revokedTokens === 0)
      throw notFound(
        `No application ${JSON.stringify(clientId)} of another account is connected to this account; GET /sandbox/connected-apps lists them (a client this account registered is deleted with DELETE /sandbox/oauth-clients/{clientId})`,
      );
    res.json({ clientId, revokedTokens: outcome.revokedTokens });
  });

  return api.done();
}
