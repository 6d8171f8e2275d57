import type { z } from 'zod';

import type { AccountDoc, AlertRecord, AlertType, DeepReadonly } from '../store/data.js';
import { findLocation } from '../store/lookups.js';
import { isShownActive } from './presenter.js';
import type { AlertEnded, AlertStarted, SandboxAlert } from './schemas.js';
import { endAlertDetailed, startAlertDetailed, type AlertsDeps, type StartAlertInput } from './service.js';

/** An alert as the sandbox shows it: the public fields plus its id and the sandbox's bookkeeping. */
export function presentSandboxAlert(a: DeepReadonly<AlertRecord>): SandboxAlert {
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

function startNote(outcome: string, requestedType: AlertType, alert: DeepReadonly<AlertRecord>): string | null {
  if (outcome === 'ignored')
    return `${requestedType} ignored: a ${alert.type} alert (${alert.alertId}) is already active at this location`;
  if (outcome === 'escalated')
    return `escalated: the active lowLeak is replaced by this highLeak; when it ends, the low leak resumes`;
  if (requestedType !== alert.type)
    return `the location is in away mode, so the ${requestedType} is raised as ${alert.type}`;
  return null;
}

/**
 * Starts an alert at one of the caller's locations and answers what POST
 * /sandbox/locations/{locationId}/alerts answers (its status: 200 when `outcome` is ignored, else 201).
 */
export async function startAlertAnswer(
  deps: AlertsDeps,
  caller: { accountId: string; doc: DeepReadonly<AccountDoc> },
  locationId: string,
  input: StartAlertInput,
): Promise<z.output<typeof AlertStarted>> {
  // An unknown location is a 404 before the body is looked at.
  findLocation(caller.doc, locationId);
  const result = await startAlertDetailed(deps, caller.accountId, locationId, input);
  return {
    outcome: result.outcome,
    note: startNote(result.outcome, result.requestedType, result.alert),
    notifications: result.notifications,
    ...presentSandboxAlert(result.alert),
  };
}

/** Ends an alert and answers what POST /sandbox/locations/{locationId}/alerts/{alertId}/end answers. */
export async function endAlertAnswer(
  deps: AlertsDeps,
  accountId: string,
  locationId: string,
  alertId: string,
): Promise<z.output<typeof AlertEnded>> {
  const result = await endAlertDetailed(deps, accountId, locationId, alertId);
  return {
    notifications: result.notifications,
    ...presentSandboxAlert(result.ended),
    resumed: result.resumed ? presentSandboxAlert(result.resumed) : null,
  };
}
