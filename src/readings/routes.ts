import type { Router } from 'express';

import { operationRouter } from '../http/operation.js';
import { authOf } from '../http/request-context.js';
import { findLocation } from '../store/lookups.js';
import { getWaterUsageOp, getWaterUsageSummaryOp } from './operations.js';
import type { ReadingsService } from './service.js';

/** GET /v1/locations/{id}/readings/water-usage and .../water-usage/summary. */
export function readingsRouter(deps: { readings: ReadingsService }): Router {
  const api = operationRouter('/v1');
  const { readings } = deps;

  api.handle(getWaterUsageOp, ({ params, query }, _req, res) => {
    const { doc } = authOf(res);
    // An unknown location is a 404 whatever the query says.
    findLocation(doc, params.locationId);
    res.json(readings.readings(doc, params.locationId, query()));
  });

  api.handle(getWaterUsageSummaryOp, ({ params }, _req, res) => {
    res.json(readings.summary(authOf(res).doc, params.locationId));
  });

  return api.done();
}
