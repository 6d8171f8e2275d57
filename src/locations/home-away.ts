import { publishAccountEvent } from '../live/index.js';
import { findLocationToChange } from '../store/lookups.js';
import type { Store } from '../store/store.js';
import { presentLocation } from './presenter.js';
import type { PublicLocation } from './schemas.js';

/** Sets a location home or away (a 404 for a location the account does not have), tells the account's live streams, and answers the location. */
export async function setHomeAway(
  deps: { store: Store },
  accountId: string,
  locationId: string,
  homeAway: 'home' | 'away',
): Promise<PublicLocation> {
  const updated = await deps.store.accounts.update(accountId, (d) => {
    const location = findLocationToChange(d, locationId);
    location.homeAway = homeAway;
    return presentLocation(d, location);
  });
  await publishAccountEvent(deps.store, accountId, { type: 'location', locationId, homeAway });
  return updated;
}
