import { isShownActive, presentAlert, type PublicAlert } from '../alerts/index.js';
import type { AccountDoc, DeepReadonly, HomeAway, LocationRecord } from '../store/data.js';

/** Production's Location object, with exactly its keys. */
export interface PublicLocation {
  locationId: string;
  name: string;
  homeAway: HomeAway;
  devices: { deviceId: string; type: 'monitor'; connected: boolean; calibrated: boolean }[];
  alerts: PublicAlert[];
  subscriptionIds: string[];
}

export function presentLocation(doc: DeepReadonly<AccountDoc>, location: DeepReadonly<LocationRecord>): PublicLocation {
  return {
    locationId: location.locationId,
    name: location.name,
    homeAway: location.homeAway,
    devices: location.devices.map((d) => ({ deviceId: d.deviceId, type: d.type, connected: d.connected, calibrated: d.calibrated })),
    alerts: doc.alerts.filter((a) => a.locationId === location.locationId && isShownActive(a)).map(presentAlert),
    subscriptionIds: doc.subscriptions.filter((s) => s.locationId === location.locationId).map((s) => s.subscriptionId),
  };
}
