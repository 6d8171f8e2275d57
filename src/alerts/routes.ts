import type { Router } from 'express';

import { notFound } from '../core/errors.js';
import { operationRouter } from '../http/operation.js';
import { pageOf } from '../http/pagination.js';
import { authOf } from '../http/request-context.js';
import type { AlertRecord, DeepReadonly } from '../store/data.js';
import { findLocation } from '../store/lookups.js';
import { endAlertOp, getAlertOp, listAlertsOp, startAlertOp } from './operations.js';
import { isShownActive } from './presenter.js';
import { DEFAULT_ALERTS_PER_PAGE, type SandboxAlert } from './schemas.js';
import { endAlertDetailed, startAlertDetailed, type AlertsDeps } from './service.js';

/** An alert as the sandbox shows it: the public fields plus its id and the sandbox's bookkeeping. */
function presentSandboxAlert(a: DeepReadonly<AlertRecord>): SandboxAlert {
  return {
    alertId: a.alertId,
    locationId: a.locationId,
    deviceId: a.deviceId,
    type: a.type,
    active: a.active,
    startTime: a.startTime,
    detectedTime: a.detectedTime,
    stopTime: a.stopTime,
    peakValue: a.peakValue,
    peakStatus: a.peakStatus,
    flowGpm: a.flowGpm,
    shown: isShownActive(a),
    supersededBy: a.supersededBy ?? null,
    continuedBy: a.continuedBy ?? null,
  };
}

function startNote(outcome: string, requestedType: string, alert: DeepReadonly<AlertRecord>): string | null {
  if (outcome === 'ignored')
    return `${requestedType} ignored: a ${alert.type} alert (${alert.alertId}) is already active at this location`;
  if (outcome === 'escalated')
    return `escalated: the active lowLeak is replaced by this highLeak; when it ends, the low leak resumes`;
  if (requestedType !== alert.type)
    return `the location is in away mode, so the ${requestedType} is raised as ${alert.type}`;
  return null;
}

/** /sandbox/locations/{id}/alerts. */
export function alertsSandboxRouter(deps: AlertsDeps): Router {
  const api = operationRouter('/sandbox');

  api.handle(startAlertOp, async ({ params, body }, _req, res) => {
    const { accountId, doc } = authOf(res);
    findLocation(doc, params.locationId);
    const result = await startAlertDetailed(deps, accountId, params.locationId, body());
    res.status(result.outcome === 'ignored' ? 200 : 201).json({
      outcome: result.outcome,
      note: startNote(result.outcome, result.requestedType, result.alert),
      notifications: result.notifications,
      ...presentSandboxAlert(result.alert),
    });
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
    const { accountId } = authOf(res);
    body();
    const result = await endAlertDetailed(deps, accountId, params.locationId, params.alertId);
    res.json({
      notifications: result.notifications,
      ...presentSandboxAlert(result.ended),
      resumed: result.resumed ? presentSandboxAlert(result.resumed) : null,
    });
  });

  return api.done();
}
