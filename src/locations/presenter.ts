import { isShownActive, presentAlert } from '../alerts/index.js';
import type { AccountDoc, DeepReadonly, LocationRecord } from '../store/data.js';
import type { PublicLocation } from './schemas.js';

export function presentLocation(doc: DeepReadonly<AccountDoc>, location: DeepReadonly<LocationRecord>): PublicLocation {
  return {
    locationId: location.locationId,
    name: location.name,
    homeAway: location.homeAway,
    devices: location.devices.map((d) => ({
      deviceId: d.deviceId,
      type: d.type,
      connected: d.connected,
      calibrated: d.calibrated,
    })),
    alerts: doc.alerts.filter((a) => a.locationId === location.locationId && isShownActive(a)).map(presentAlert),
    subscriptionIds: doc.subscriptions.filter((s) => s.locationId === location.locationId).map((s) => s.subscriptionId),
  };
}
