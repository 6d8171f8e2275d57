import { Router } from 'express';

import { AppError, invalidParameter } from '../core/errors.js';
import type { Deps } from '../deps.js';
import { pageOf, parsePaging } from '../http/pagination.js';
import { authOf } from '../http/request-context.js';
import { allowOnly } from '../http/routing.js';
import type { HomeAway } from '../store/data.js';
import { findOwnLocation } from './lookup.js';
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

export function locationsRouter(deps: Deps): Router {
  const router = Router({ strict: true });

  router.get('/locations', (req, res) => {
    const { accountId } = authOf(res);
    const paging = parsePaging(req.query, DEFAULT_LOCATIONS_PER_PAGE);
    const locations = deps.store.read((d) => d.locations.filter((l) => l.accountId === accountId).map((l) => presentLocation(d, l)));
    res.json(pageOf('locations', locations, paging));
  });
  allowOnly(router, '/locations', ['GET']);

  router.get('/locations/:locationId', (req, res) => {
    const { accountId } = authOf(res);
    res.json(deps.store.read((d) => presentLocation(d, findOwnLocation(d, accountId, req.params.locationId))));
  });

  router.put('/locations/:locationId', async (req, res) => {
    const { accountId } = authOf(res);
    deps.store.read((d) => findOwnLocation(d, accountId, req.params.locationId));
    const { homeAway } = parseLocationUpdate(req.body);
    const updated = await deps.store.write((d) => {
      const location = d.locations.find((l) => l.locationId === req.params.locationId && l.accountId === accountId);
      if (location) location.homeAway = homeAway;
      return location ? presentLocation(d, location) : null;
    });
    res.json(updated);
  });
  allowOnly(router, '/locations/:locationId', ['GET', 'PUT']);

  return router;
}
