import { Router } from 'express';

import { authOf } from '../http/request-context.js';
import { allowOnly } from '../http/routing.js';
import type { ReadingsService } from './service.js';

/** GET /v1/locations/{id}/readings/water-usage and .../water-usage/summary. */
export function readingsRouter(deps: { readings: ReadingsService }): Router {
  const router = Router({ strict: true });
  const { readings } = deps;

  router.get('/locations/:locationId/readings/water-usage', (req, res) => {
    res.json(readings.readings(authOf(res).doc, req.params.locationId, req.query));
  });
  allowOnly(router, '/locations/:locationId/readings/water-usage', ['GET']);

  router.get('/locations/:locationId/readings/water-usage/summary', (req, res) => {
    res.json(readings.summary(authOf(res).doc, req.params.locationId));
  });
  allowOnly(router, '/locations/:locationId/readings/water-usage/summary', ['GET']);

  return router;
}
