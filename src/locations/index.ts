/** What other features use of locations. */
export { LocationList, locationsOperations } from './operations.js';
export { presentLocation } from './presenter.js';
export { locationsRouter } from './routes.js';
export { Device, Location, type PublicLocation } from './schemas.js';
