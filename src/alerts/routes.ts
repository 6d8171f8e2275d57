import type { Router } from 'express';

import { notFound } from '../core/errors.js';
import { operationRouter } from '../http/operation.js';
import { pageOf } from '../http/pagination.js';
import { authOf } from '../http/request-context.js';
import { findLocation } from '../store/lookups.js';
import { endAlertAnswer, presentSandboxAlert, startAlertAnswer } from './answers.js';
import { endAlertOp, getAlertOp, listAlertsOp, startAlertOp } from './operations.js';
import { DEFAULT_ALERTS_PER_PAGE } from './schemas.js';
import type { AlertsDeps } from './service.js';

/** /sandbox/locations/{id}/alerts. */
export function alertsSandboxRouter(deps: AlertsDeps): Router {
  const api = operationRouter('/sandbox');

  api.handle(startAlertOp, async ({ params, body }, _req, res) => {
    const started = await startAlertAnswer(deps, authOf(res), params.locationId, body());
    res.status(started.outcome === 'ignored' ? 200 : 201).json(started);
  });

  api.handle(listAlertsOp, ({ params, query }, _req, res) => {
    const { doc } = authOf(res);
    const { active, page, perPage } = query();
    findLocation(doc, params.locationId);
    const alerts = doc.alerts
      .filter((a) => a.locationId === params.locationId && (active === undefined || a.active === active))
      .reverse()
      .map(presentSandboxAlert);
    res.json(pageOf('alerts', alerts, { page: page ?? 1, perPage: perPage ?? DEFAULT_ALERTS_PER_PAGE }));
  });

  api.handle(getAlertOp, ({ params }, _req, res) => {
    const { doc } = authOf(res);
    const { locationId, alertId } = params;
    findLocation(doc, locationId);
    const found = doc.alerts.find((a) => a.alertId === alertId && a.locationId === locationId);
    if (!found) throw notFound(`No alert ${JSON.stringify(alertId)} at location ${locationId} in this account`);
    res.json(presentSandboxAlert(found));
  });

  api.handle(endAlertOp, async ({ params, body }, _req, res) => {
    body();
    res.json(await endAlertAnswer(deps, authOf(res).accountId, params.locationId, params.alertId));
  });

  return api.done();
}
