import { DEMO_LOCATIONS } from './demo.js';

const [newYork, losAngeles] = DEMO_LOCATIONS;
if (newYork?.timeZone !== 'America/New_York' || losAngeles?.timeZone !== 'America/Los_Angeles')
  throw new Error('fixtures/default.json must give the demo account a New York and then a Los Angeles location');

/** The demo account's two locations, each with one device: New York's id is DEMO_LOCATION_ID. */
export const DEMO_NEW_YORK = newYork;
export const DEMO_LOS_ANGELES = losAngeles;
