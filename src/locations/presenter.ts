import { isShownActive, presentAlert } from '../alerts/index.js';
import { pageOf } from '../http/pagination.js';
import type { AccountDoc, DeepReadonly, LocationRecord } from '../store/data.js';
import { DEFAULT_LOCATIONS_PER_PAGE } from './operations.js';
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

/** What GET /v1/locations answers: a page of the account's locations (the first 50 unless asked). */
export function locationsPage(
  doc: DeepReadonly<AccountDoc>,
  paging: { page?: number | undefined; perPage?: number | undefined },
) {
  return pageOf(
    'locations',
    doc.locations.map((l) => presentLocation(doc, l)),
    { page: paging.page ?? 1, perPage: paging.perPage ?? DEFAULT_LOCATIONS_PER_PAGE },
  );
}
