import type { Router } from 'express';

import { operationRouter } from '../http/operation.js';
import { authOf } from '../http/request-context.js';
import { sendJsonBytes } from '../http/send-json.js';
import { findLocation } from '../store/lookups.js';
import type { Store } from '../store/store.js';
import { locationAnswer } from './answer.js';
import { setHomeAway } from './home-away.js';
import { getLocationOp, listLocationsOp, updateLocationOp } from './operations.js';
import { locationsPage } from './presenter.js';

export interface LocationsDeps {
  store: Store;
}

export function locationsRouter(deps: LocationsDeps): Router {
  const api = operationRouter('/v1');

  api.handle(listLocationsOp, ({ query }, _req, res) => {
    res.json(locationsPage(authOf(res).doc, query()));
  });

  api.handle(getLocationOp, ({ params }, _req, res) => {
    sendJsonBytes(res, locationAnswer(authOf(res).doc, params.locationId));
  });

  api.handle(updateLocationOp, async ({ params, body }, _req, res) => {
    const { accountId, doc } = authOf(res);
    // An unknown location is a 404 before the body is looked at.
    findLocation(doc, params.locationId);
    res.json(await setHomeAway(deps, accountId, params.locationId, body().homeAway));
  });

  return api.done();
}
