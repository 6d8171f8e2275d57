import { accountNow } from '../clock/index.js';
import { epochSeconds, type Clock } from '../core/clock.js';
import { conflict, notFound } from '../core/errors.js';
import type { Ids } from '../core/ids.js';
import type { Logger } from '../core/logger.js';
import { publishAccountEvent } from '../live/index.js';
import { copyOf } from '../store/change-draft.js';
import type { AccountDoc, AlertRecord, AlertType, DeepReadonly, DeliveryRecord } from '../store/data.js';
import { findLocation } from '../store/lookups.js';
import type { Store } from '../store/store.js';
import type { Dispatcher } from '../webhooks/index.js';
import { alertNotification } from './presenter.js';
import { alertTimes, decideStart, fallbackOf, resolveStart } from './rules.js';

/** Ended alerts kept per location; older ones are dropped when a new alert starts. */
export const ENDED_ALERTS_KEPT_PER_LOCATION = 100;

export interface AlertsDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  logger: Logger;
  dispatcher: Dispatcher;
}

export interface StartAlertInput {
  type: AlertType;
  deviceId?: string | undefined;
  peakValue?: number | undefined;
  peakStatus?: 'too_high' | 'too_low' | null | undefined;
  flowGpm?: number | undefined;
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

/** One alert notification per confirmed subscription of the alert's location. */
function notificationsFor(
  deps: AlertsDeps,
  doc: DeepReadonly<AccountDoc>,
  alert: DeepReadonly<AlertRecord>,
  nowMs: number,
): DeliveryRecord[] {
  return doc.subscriptions
    .filter((s) => s.locationId === alert.locationId && s.status === 'confirmed')
    .map((s) =>
      deps.dispatcher.build(
        {
          accountId: alert.accountId,
          kind: 'alert',
          subscriptionId: s.subscriptionId,
          locationId: alert.locationId,
          target: s.endpoint,
          payload: alertNotification(alert, s.subscriptionId),
        },
        nowMs,
      ),
    );
}

/**
 * Keeps a location's alert history bounded: active alerts (shown or superseded) stay, and of
 * the ended ones the newest ENDED_ALERTS_KEPT_PER_LOCATION. A dropped leak no longer adds its
 * flow to the readings of the hours it covered (documented in docs/alerts-and-webhooks.md).
 */
function trimHistory(doc: AccountDoc, locationId: string): void {
  let ended = 0;
  // Newest first, over a copy of the entries: a splice moves only the alerts already passed.
  for (const [i, a] of [...doc.alerts.entries()].reverse()) {
    if (a.locationId === locationId && !a.active && ++ended > ENDED_ALERTS_KEPT_PER_LOCATION) doc.alerts.splice(i, 1);
  }
}

/**
 * After an alert's start or end is stored: the dispatcher is woken for its notifications, the log
 * says what happened (with `details`), and the account's live stream (the dashboard) hears of it.
 */
async function announce(
  deps: AlertsDeps,
  accountId: string,
  what: 'alert started' | 'alert ended',
  alert: AlertRecord,
  details: Readonly<Record<string, unknown>>,
): Promise<void> {
  const { locationId, alertId } = alert;
  deps.dispatcher.kick(accountId);
  deps.logger.info(what, { accountId, locationId, alertId, type: alert.type, ...details });
  await publishAccountEvent(deps.store, accountId, {
    type: 'alert',
    alertId,
    locationId,
    active: what === 'alert started',
  });
}

export async function startAlert(
  deps: AlertsDeps,
  accountId: string,
  locationId: string,
  input: StartAlertInput,
): Promise<AlertOutcome> {
  const { outcome, alert } = await startAlertDetailed(deps, accountId, locationId, input);
  return { outcome, alert };
}

/**
 * Validates (4xx AppErrors naming the field), applies the leak rules, stores, and enqueues one
 * notification per confirmed subscription of the location. The alert and its notifications are
 * stored in one change, so a restart never loses one without the other.
 */
export async function startAlertDetailed(
  deps: AlertsDeps,
  accountId: string,
  locationId: string,
  input: StartAlertInput,
): Promise<StartResult> {
  const alertId = deps.ids.uuid();
  const result = await deps.store.accounts.update(accountId, (doc, tx): StartResult => {
    const location = findLocation(doc, locationId);
    const resolved = resolveStart(location, input);
    const decision = decideStart(
      doc.alerts.filter((a) => a.locationId === locationId),
      resolved.type,
    );
    if (decision.outcome === 'ignored') {
      return {
        outcome: 'ignored',
        alert: copyOf(decision.inForce),
        requestedType: resolved.requestedType,
        notifications: 0,
      };
    }
    const now = accountNow(deps.clock, doc.clock);
    const alert: AlertRecord = {
      alertId,
      accountId,
      locationId,
      deviceId: resolved.deviceId,
      type: resolved.type,
      active: true,
      ...alertTimes(resolved.type, epochSeconds(now)),
      stopTime: 0,
      peakValue: resolved.peakValue,
      peakStatus: resolved.peakStatus,
      flowGpm: resolved.flowGpm,
    };
    if (decision.outcome === 'escalated') {
      const low = doc.alerts.find((a) => a.alertId === decision.supersedes.alertId);
      if (low) {
        // The low leak's flow stops where the high one starts, so readings never count both;
        // it stays `active` (hidden) so the high leak can fall back to it.
        low.supersededBy = alert.alertId;
        low.stopTime = Math.max(low.startTime, alert.startTime);
      }
    }
    doc.alerts.push(alert);
    trimHistory(doc, locationId);
    const deliveries = notificationsFor(deps, doc, alert, now.getTime());
    tx.addDeliveries(deliveries);
    return {
      outcome: decision.outcome,
      alert: copyOf(alert),
      requestedType: resolved.requestedType,
      notifications: deliveries.length,
    };
  });
  if (result.outcome !== 'ignored') {
    await announce(deps, accountId, 'alert started', result.alert, {
      outcome: result.outcome,
      notifications: result.notifications,
    });
  }
  return result;
}

/** Ends an active alert (404 for unknown/other account's alert, 409 if already ended) and notifies; applies the fall-back-to-low rule. */
export async function endAlert(
  deps: AlertsDeps,
  accountId: string,
  locationId: string,
  alertId: string,
): Promise<AlertRecord> {
  return (await endAlertDetailed(deps, accountId, locationId, alertId)).ended;
}

export async function endAlertDetailed(
  deps: AlertsDeps,
  accountId: string,
  locationId: string,
  alertId: string,
): Promise<EndResult> {
  const resumedId = deps.ids.uuid();
  const result = await deps.store.accounts.update(accountId, (doc, tx): EndResult => {
    findLocation(doc, locationId);
    let alert = doc.alerts.find((a) => a.alertId === alertId && a.locationId === locationId);
    if (!alert) throw notFound(`No alert ${JSON.stringify(alertId)} at location ${locationId} in this account`);
    // A low leak that fell back after a high one lives on as a new alert: ending the original ends that one.
    const seen = new Set<string>();
    while (alert.continuedBy !== undefined && !seen.has(alert.alertId)) {
      seen.add(alert.alertId);
      const next: AlertRecord | undefined = doc.alerts.find((a) => a.alertId === alert?.continuedBy);
      if (!next) break;
      alert = next;
    }
    if (!alert.active)
      throw conflict(
        'alert_already_ended',
        `Alert ${alert.alertId} already ended at ${alert.stopTime} (epoch seconds)`,
      );
    alert.active = false;
    if (alert.supersededBy !== undefined) {
      // A low leak repaired while a high one hides it: it was never shown, so nobody is told, and
      // the high leak will not fall back to it. Its flow already stopped at the escalation.
      return { ended: copyOf(alert), resumed: null, notifications: 0 };
    }
    const now = accountNow(deps.clock, doc.clock);
    alert.stopTime = Math.max(alert.startTime, epochSeconds(now));
    const deliveries = notificationsFor(deps, doc, alert, now.getTime());
    let resumed: AlertRecord | null = null;
    const low = fallbackOf(doc.alerts, alert) as AlertRecord | undefined;
    if (low) {
      // The low leak was past its threshold all along, so it is detected again at once.
      resumed = {
        alertId: resumedId,
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
      doc.alerts.push(resumed);
      deliveries.push(...notificationsFor(deps, doc, resumed, now.getTime()));
    }
    trimHistory(doc, locationId);
    tx.addDeliveries(deliveries);
    return {
      ended: copyOf(alert),
      resumed: resumed ? copyOf(resumed) : null,
      notifications: deliveries.length,
    };
  });
  await announce(deps, accountId, 'alert ended', result.ended, { resumed: result.resumed?.alertId ?? null });
  return result;
}
