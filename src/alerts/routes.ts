import { Router } from 'express';

import { AppError, invalidParameter, notFound } from '../core/errors.js';
import { pageOf, parsePaging } from '../http/pagination.js';
import { authOf } from '../http/request-context.js';
import { allowOnly, queryString } from '../http/routing.js';
import type { AlertRecord, DeepReadonly } from '../store/data.js';
import { findLocation } from '../store/lookups.js';
import { isShownActive } from './presenter.js';
import { endAlertDetailed, startAlertDetailed, type AlertsDeps, type StartAlertInput } from './service.js';

const START_FIELDS = ['type', 'deviceId', 'peakValue', 'peakStatus'];
const DEFAULT_ALERTS_PER_PAGE = 50;

/** An alert as the sandbox shows it: the public fields plus its id and the sandbox's bookkeeping. */
function presentSandboxAlert(a: DeepReadonly<AlertRecord>) {
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
    /** Whether the location's `alerts` shows it. */
    shown: isShownActive(a),
    supersededBy: a.supersededBy ?? null,
    continuedBy: a.continuedBy ?? null,
  };
}

function parseStartBody(body: unknown): StartAlertInput {
  const example = '{"type": "lowLeak", "peakValue": 0.5}';
  if (body === undefined) {
    throw new AppError(415, 'unsupported_media_type', `The request body must be JSON with Content-Type: application/json, e.g. ${example}`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidParameter('body', `The request body must be a JSON object such as ${example}`);
  }
  const unknown = Object.keys(body).filter((k) => !START_FIELDS.includes(k));
  if (unknown[0] !== undefined) {
    throw invalidParameter(unknown[0], `An alert takes only ${START_FIELDS.join(', ')}; remove ${unknown.map((k) => JSON.stringify(k)).join(', ')}`);
  }
  // Types are checked by the service, which also serves scenario steps.
  return body as StartAlertInput;
}

function startNote(outcome: string, requestedType: string, alert: DeepReadonly<AlertRecord>): string | null {
  if (outcome === 'ignored') return `${requestedType} ignored: a ${alert.type} alert (${alert.alertId}) is already active at this location`;
  if (outcome === 'escalated') return `escalated: the active lowLeak is replaced by this highLeak; when it ends, the low leak resumes`;
  if (requestedType !== alert.type) return `the location is in away mode, so the ${requestedType} is raised as ${alert.type}`;
  return null;
}

/** /sandbox/locations/{id}/alerts. */
export function alertsSandboxRouter(deps: AlertsDeps): Router {
  const router = Router({ strict: true });

  router.post('/locations/:locationId/alerts', async (req, res) => {
    const { accountId, doc } = authOf(res);
    const { locationId } = req.params;
    findLocation(doc, locationId);
    const input = parseStartBody(req.body);
    const result = await startAlertDetailed(deps, accountId, locationId, input);
    res.status(result.outcome === 'ignored' ? 200 : 201).json({
      outcome: result.outcome,
      note: startNote(result.outcome, result.requestedType, result.alert),
      notifications: result.notifications,
      ...presentSandboxAlert(result.alert),
    });
  });

  router.get('/locations/:locationId/alerts', (req, res) => {
    const { doc } = authOf(res);
    const query = req.query as Record<string, unknown>;
    const active = queryString(query, 'active');
    if (active !== undefined && active !== 'true' && active !== 'false') throw invalidParameter('active', `active must be true or false; got ${JSON.stringify(active)}`);
    const paging = parsePaging(query, DEFAULT_ALERTS_PER_PAGE);
    findLocation(doc, req.params.locationId);
    const alerts = doc.alerts
      .filter((a) => a.locationId === req.params.locationId && (active === undefined || a.active === (active === 'true')))
      .reverse()
      .map(presentSandboxAlert);
    res.json(pageOf('alerts', alerts, paging));
  });
  allowOnly(router, '/locations/:locationId/alerts', ['GET', 'POST']);

  router.get('/locations/:locationId/alerts/:alertId', (req, res) => {
    const { doc } = authOf(res);
    const { locationId, alertId } = req.params;
    findLocation(doc, locationId);
    const found = doc.alerts.find((a) => a.alertId === alertId && a.locationId === locationId);
    if (!found) throw notFound(`No alert ${JSON.stringify(alertId)} at location ${locationId} in this account`);
    res.json(presentSandboxAlert(found));
  });
  allowOnly(router, '/locations/:locationId/alerts/:alertId', ['GET']);

  router.post('/locations/:locationId/alerts/:alertId/end', async (req, res) => {
    const { accountId } = authOf(res);
    const body: unknown = req.body;
    if (body !== undefined && (typeof body !== 'object' || body === null || Object.keys(body).length > 0)) {
      throw invalidParameter('body', 'Ending an alert takes no body; send an empty request');
    }
    const result = await endAlertDetailed(deps, accountId, req.params.locationId, req.params.alertId);
    res.json({
      notifications: result.notifications,
      ...presentSandboxAlert(result.ended),
      resumed: result.resumed ? presentSandboxAlert(result.resumed) : null,
    });
  });
  allowOnly(router, '/locations/:locationId/alerts/:alertId/end', ['POST']);

  return router;
}
