import { notFound } from '../core/errors.js';
import type { Data, DeepReadonly, LocationRecord } from '../store/data.js';

/** The account's location, or a 404 that does not reveal whether another account has it. */
export function findOwnLocation(data: DeepReadonly<Data>, accountId: string, locationId: string): DeepReadonly<LocationRecord> {
  const location = data.locations.find((l) => l.locationId === locationId && l.accountId === accountId);
  if (!location) throw notFound(`No location ${JSON.stringify(locationId)} in this account`);
  return location;
}
