import type { Router } from 'express';

import { operationRouter } from '../http/operation.js';
import { pageOf } from '../http/pagination.js';
import { authOf } from '../http/request-context.js';
import { sendJsonBytes } from '../http/send-json.js';
import { publishAccountEvent } from '../live/index.js';
import { findLocation, findLocationToChange } from '../store/lookups.js';
import type { Store } from '../store/store.js';
import { locationAnswer } from './answer.js';
import { DEFAULT_LOCATIONS_PER_PAGE, getLocationOp, listLocationsOp, updateLocationOp } from './operations.js';
import { presentLocation } from './presenter.js';

export interface LocationsDeps {
  store: Store;
}

export function locationsRouter(deps: LocationsDeps): Router {
  const api = operationRouter('/v1');

  api.handle(listLocationsOp, ({ query }, _req, res) => {
    const { doc } = authOf(res);
    const { page = 1, perPage = DEFAULT_LOCATIONS_PER_PAGE } = query();
    res.json(
      pageOf(
        'locations',
        doc.locations.map((l) => presentLocation(doc, l)),
        { page, perPage },
      ),
    );
  });

  api.handle(getLocationOp, ({ params }, _req, res) => {
    sendJsonBytes(res, locationAnswer(authOf(res).doc, params.locationId));
  });

  api.handle(updateLocationOp, async ({ params, body }, _req, res) => {
    const { accountId, doc } = authOf(res);
    const { locationId } = params;
    findLocation(doc, locationId);
    const { homeAway } = body();
    const updated = await deps.store.accounts.update(accountId, (d) => {
      const location = findLocationToChange(d, locationId);
      location.homeAway = homeAway;
      return presentLocation(d, location);
    });
    await publishAccountEvent(deps.store, accountId, { type: 'location', locationId, homeAway });
    res.json(updated);
  });

  return api.done();
}
