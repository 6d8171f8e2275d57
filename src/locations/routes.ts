import { Router } from 'express';

import { AppError, invalidParameter } from '../core/errors.js';
import { pageOf, parsePaging } from '../http/pagination.js';
import { authOf } from '../http/request-context.js';
import { allowOnly } from '../http/routing.js';
import { publishAccountEvent } from '../live/index.js';
import type { HomeAway } from '../store/data.js';
import { findLocation, findLocationToChange } from '../store/lookups.js';
import type { Store } from '../store/store.js';
import { presentLocation } from './presenter.js';

// Production's capture of GET /v1/locations shows perPage 50 when none is asked for.
const DEFAULT_LOCATIONS_PER_PAGE = 50;

/** Validates the PUT body: only `homeAway` is writable. */
export function parseLocationUpdate(body: unknown): { homeAway: HomeAway } {
  if (body === undefined) {
    throw new AppError(415, 'unsupported_media_type', 'The request body must be JSON with Content-Type: application/json, e.g. {"homeAway": "away"}');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidParameter('body', 'The request body must be a JSON object such as {"homeAway": "away"}');
  }
  const unknown = Object.keys(body).filter((k) => k !== 'homeAway');
  if (unknown.length > 0) {
    throw invalidParameter(unknown[0] ?? 'body', `Only homeAway can be changed on a location; remove ${unknown.map((k) => JSON.stringify(k)).join(', ')}`);
  }
  const { homeAway } = body as { homeAway?: unknown };
  if (homeAway === undefined) throw invalidParameter('homeAway', 'homeAway is required and must be "home" or "away"');
  if (homeAway !== 'home' && homeAway !== 'away') {
    throw invalidParameter('homeAway', `homeAway must be "home" or "away"; got ${JSON.stringify(homeAway)}`);
  }
  return { homeAway };
}

export interface LocationsDeps {
  store: Store;
}

export function locationsRouter(deps: LocationsDeps): Router {
  const router = Router({ strict: true });

  router.get('/locations', (req, res) => {
    const { doc } = authOf(res);
    const paging = parsePaging(req.query, DEFAULT_LOCATIONS_PER_PAGE);
    res.json(pageOf('locations', doc.locations.map((l) => presentLocation(doc, l)), paging));
  });
  allowOnly(router, '/locations', ['GET']);

  router.get('/locations/:locationId', (req, res) => {
    const { doc } = authOf(res);
    res.json(presentLocation(doc, findLocation(doc, req.params.locationId)));
  });

  router.put('/locations/:locationId', async (req, res) => {
    const { accountId, doc } = authOf(res);
    const { locationId } = req.params;
    findLocation(doc, locationId);
    const { homeAway } = parseLocationUpdate(req.body);
    const updated = await deps.store.accounts.update(accountId, (d) => {
      const location = findLocationToChange(d, locationId);
      location.homeAway = homeAway;
      return presentLocation(d, location);
    });
    await publishAccountEvent(deps.store, accountId, { type: 'location', locationId, homeAway });
    res.json(updated);
  });
  allowOnly(router, '/locations/:locationId', ['GET', 'PUT']);

  return router;
}
