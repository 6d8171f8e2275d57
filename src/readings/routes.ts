import type { Router } from 'express';

import { operationRouter } from '../http/operation.js';
import { authOf, noteRequestFacts } from '../http/request-context.js';
import { sendJsonBytes } from '../http/send-json.js';
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
    const parsed = query();
    const answered = readings.readings(doc, params.locationId, parsed);
    noteRequestFacts(res, {
      readings: {
        locationId: params.locationId,
        call: 'usage',
        groupBy: parsed.groupBy,
        fromMs: parsed.startMs,
        ...(parsed.endMs === null ? {} : { toMs: parsed.endMs }),
        page: answered.page,
        pageCount: answered.pageCount,
      },
    });
    sendJsonBytes(res, answered.body);
  });

  api.handle(getWaterUsageSummaryOp, ({ params }, _req, res) => {
    const summary = readings.summary(authOf(res).doc, params.locationId);
    noteRequestFacts(res, { readings: { locationId: params.locationId, call: 'summary' } });
    res.json(summary);
  });

  return api.done();
}
