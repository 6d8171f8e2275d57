import { epochSeconds } from '../core/clock.js';
import { conflict, notFound } from '../core/errors.js';
import type { Deps } from '../deps.js';
import { findOwnLocation } from '../locations/lookup.js';
import type { AlertRecord, AlertType, Data, DeepReadonly, DeliveryRecord } from '../store/data.js';
import { alertNotification } from './presenter.js';
import { alertTimes, decideStart, fallbackOf, resolveStart } from './rules.js';

export interface StartAlertInput {
  type: AlertType;
  deviceId?: string;
  peakValue?: number;
  peakStatus?: 'too_high' | 'too_low' | null;
  flowGpm?: number;
}

export interface AlertOutcome {
  outcome: 'started' | 'escalated' | 'ignored';
  /** The alert now in force for this request. */
  alert: AlertRecord;
}

export interface StartResult extends AlertOutcome {
  /** The type asked for (the alert's type differs when the away rule turned a leak into awayLeak). */
  requestedType: AlertType;
  /** Notifications queued (one per confirmed subscription of the location). */
  notifications: number;
}

export interface EndResult {
  /** The alert that ended. */
  ended: AlertRecord;
  /** The low leak that resumed because the high leak ended, if any. */
  resumed: AlertRecord | null;
  notifications: number;
}

/** Builds one alert notification per confirmed subscription of the alert's location. */
function notificationsFor(deps: Deps, data: DeepReadonly<Data>, alert: DeepReadonly<AlertRecord>): DeliveryRecord[] {
  return data.subscriptions
    .filter((s) => s.locationId === alert.locationId && s.accountId === alert.accountId && s.status === 'confirmed')
    .map((s) =>
      deps.dispatcher.build({
        accountId: alert.accountId,
        kind: 'alert',
        subscriptionId: s.subscriptionId,
        locationId: alert.locationId,
        target: s.endpoint,
        payload: alertNotification(alert, s.subscriptionId),
      }),
    );
}

/**
 * Validates (4xx AppErrors naming the field), applies the leak rules, stores, and enqueues one
 * notification per confirmed subscription of the location. The alert and its notifications are
 * stored in one write, so a restart never loses one without the other.
 */
export async function startAlert(deps: Deps, accountId: string, locationId: string, input: StartAlertInput): Promise<AlertOutcome> {
  const { outcome, alert } = await startAlertDetailed(deps, accountId, locationId, input);
  return { outcome, alert };
}

export async function startAlertDetailed(deps: Deps, accountId: string, locationId: string, input: StartAlertInput): Promise<StartResult> {
  const nowSeconds = epochSeconds(deps.clocks.now(accountId));
  // Validation and the decision are made on a read; the write below follows with no await in between.
  const { resolved, decision } = deps.store.read((d) => {
    const location = findOwnLocation(d, accountId, locationId);
    const resolved = resolveStart(location, input);
    const decision = decideStart(
      d.alerts.filter((a) => a.locationId === locationId && a.accountId === accountId),
      resolved.type,
    );
    return { resolved, decision };
  });
  if (decision.outcome === 'ignored') {
    return { outcome: 'ignored', alert: structuredClone(decision.inForce) as AlertRecord, requestedType: resolved.requestedType, notifications: 0 };
  }
  const alert: AlertRecord = {
    alertId: deps.ids.uuid(),
    accountId,
    locationId,
    deviceId: resolved.deviceId,
    type: resolved.type,
    active: true,
    ...alertTimes(resolved.type, nowSeconds),
    stopTime: 0,
    peakValue: resolved.peakValue,
    peakStatus: resolved.peakStatus,
    flowGpm: resolved.flowGpm,
  };
  const notifications = await deps.store.write((d) => {
    if (decision.outcome === 'escalated') {
      const low = d.alerts.find((a) => a.alertId === decision.supersedes.alertId);
      if (low) {
        // The low leak's flow stops where the high one starts, so readings never count both;
        // it stays `active` (hidden) so the high leak can fall back to it.
        low.supersededBy = alert.alertId;
        low.stopTime = Math.max(low.startTime, alert.startTime);
      }
    }
    d.alerts.push(alert);
    const deliveries = notificationsFor(deps, d, alert);
    d.deliveries.push(...deliveries);
    return deliveries.length;
  });
  deps.dispatcher.kick();
  deps.logger.info('alert started', { accountId, locationId, alertId: alert.alertId, type: alert.type, outcome: decision.outcome, notifications });
  return { outcome: decision.outcome, alert: structuredClone(alert), requestedType: resolved.requestedType, notifications };
}

/** Ends an active alert (404 for unknown/other account's alert, 409 if already ended) and notifies; applies the fall-back-to-low rule. */
export async function endAlert(deps: Deps, accountId: string, locationId: string, alertId: string): Promise<AlertRecord> {
  return (await endAlertDetailed(deps, accountId, locationId, alertId)).ended;
}

export async function endAlertDetailed(deps: Deps, accountId: string, locationId: string, alertId: string): Promise<EndResult> {
  const nowSeconds = epochSeconds(deps.clocks.now(accountId));
  const target = deps.store.read((d) => {
    findOwnLocation(d, accountId, locationId);
    let alert = d.alerts.find((a) => a.alertId === alertId && a.accountId === accountId && a.locationId === locationId);
    if (!alert) throw notFound(`No alert ${JSON.stringify(alertId)} at location ${locationId} in this account`);
    // A low leak that fell back after a high one lives on as a new alert: ending the original ends that one.
    const seen = new Set<string>();
    while (alert.continuedBy !== undefined && !seen.has(alert.alertId)) {
      seen.add(alert.alertId);
      const next: DeepReadonly<AlertRecord> | undefined = d.alerts.find((a) => a.alertId === alert?.continuedBy);
      if (!next) break;
      alert = next;
    }
    if (!alert.active) throw conflict('alert_already_ended', `Alert ${alert.alertId} already ended at ${alert.stopTime} (epoch seconds)`);
    return alert;
  });

  const result = await deps.store.write((d): { ended: AlertRecord; resumed: AlertRecord | null; deliveries: DeliveryRecord[] } | null => {
    const alert = d.alerts.find((a) => a.alertId === target.alertId);
    if (!alert) return null;
    alert.active = false;
    if (alert.supersededBy !== undefined) {
      // A low leak repaired while a high one hides it: it was never shown, so nobody is told, and
      // the high leak will not fall back to it. Its flow already stopped at the escalation.
      return { ended: alert, resumed: null, deliveries: [] };
    }
    alert.stopTime = Math.max(alert.startTime, nowSeconds);
    const deliveries = notificationsFor(deps, d, alert);
    let resumed: AlertRecord | null = null;
    const low = fallbackOf(d.alerts, alert) as AlertRecord | undefined;
    if (low) {
      // The low leak was past its threshold all along, so it is detected again at once.
      resumed = {
        alertId: deps.ids.uuid(),
        accountId,
        locationId,
        deviceId: low.deviceId,
        type: 'lowLeak',
        active: true,
        startTime: alert.stopTime,
        detectedTime: alert.stopTime,
        stopTime: 0,
        peakValue: low.peakValue,
        peakStatus: null,
        flowGpm: low.flowGpm,
      };
      low.active = false;
      low.continuedBy = resumed.alertId;
      d.alerts.push(resumed);
      deliveries.push(...notificationsFor(deps, d, resumed));
    }
    d.deliveries.push(...deliveries);
    return { ended: alert, resumed, deliveries };
  });
  if (!result) throw notFound(`No alert ${JSON.stringify(alertId)} at location ${locationId} in this account`);
  deps.dispatcher.kick();
  deps.logger.info('alert ended', { accountId, locationId, alertId: result.ended.alertId, type: result.ended.type, resumed: result.resumed?.alertId ?? null });
  return {
    ended: structuredClone(result.ended),
    resumed: result.resumed ? structuredClone(result.resumed) : null,
    notifications: result.deliveries.length,
  };
}
