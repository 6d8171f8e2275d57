/** What other features use of locations. */
export { presentLocation, type PublicLocation } from './presenter.js';
export { locationsRouter } from './routes.js';
