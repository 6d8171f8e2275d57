import type { AlertRecord, DeepReadonly } from '../store/data.js';

/** An alert as production shows it in a location's `alerts` (no subscriptionId or locationId there). */
export interface PublicAlert {
  deviceId: string;
  type: string;
  active: boolean;
  startTime: number;
  detectedTime: number;
  stopTime: number;
  peakValue: number;
  peakStatus: 'too_high' | 'too_low' | null;
}

/** The webhook payload: the alert plus the subscription and location it is sent for. */
export interface AlertNotification extends PublicAlert {
  subscriptionId: string;
  locationId: string;
}

export function presentAlert(alert: DeepReadonly<AlertRecord>): PublicAlert {
  return {
    deviceId: alert.deviceId,
    type: alert.type,
    active: alert.active,
    startTime: alert.startTime,
    detectedTime: alert.detectedTime,
    stopTime: alert.stopTime,
    peakValue: alert.peakValue,
    peakStatus: alert.peakStatus,
  };
}

export function alertNotification(alert: DeepReadonly<AlertRecord>, subscriptionId: string): AlertNotification {
  return { subscriptionId, locationId: alert.locationId, ...presentAlert(alert) };
}

/** Alerts shown in a location's `alerts`: active ones that were not replaced by an escalation. */
export function isShownActive(alert: DeepReadonly<AlertRecord>): boolean {
  return alert.active && alert.supersededBy === undefined;
}
