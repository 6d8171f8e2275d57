/** What other features use of locations. */
export { setHomeAway } from './home-away.js';
export { listLocationsOp, LocationList, locationsOperations, updateLocationOp } from './operations.js';
export { locationsPage, presentLocation } from './presenter.js';
export { locationsRouter } from './routes.js';
export { Device, Location, type PublicLocation } from './schemas.js';
