import type { AlertRecord, DeepReadonly } from '../store/data.js';
import type { AlertNotification, PublicAlert } from './schemas.js';

export { isShownActive } from './rules.js';

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
