import { readFileSync } from 'node:fs';

interface FixtureFile {
  accounts: {
    accountId: string;
    apiKeys: string[];
    locations: { locationId: string; timeZone: string; devices: { deviceId: string }[] }[];
  }[];
}

const fixture = JSON.parse(readFileSync('fixtures/default.json', 'utf8')) as FixtureFile;
const [demoAccount, otherAccount] = fixture.accounts;
if (!demoAccount || !otherAccount) throw new Error('fixtures/default.json must hold the demo and the other account');

/** The documented demo credentials and the ids of the shipped fixtures. */
export const DEMO_API_KEY = 'demo_api_key_for_the_water_monitoring_sandbox';
export const OTHER_API_KEY = 'other_api_key_for_the_water_monitoring_sandbox';
export const DEMO_ACCOUNT_ID = demoAccount.accountId;
export const OTHER_ACCOUNT_ID = otherAccount.accountId;
export const DEMO_LOCATIONS = demoAccount.locations;
export const OTHER_LOCATIONS = otherAccount.locations;
export const DEMO_LOCATION_ID = demoAccount.locations[0]!.locationId;
export const OTHER_LOCATION_ID = otherAccount.locations[0]!.locationId;
export const DEMO_USER = { email: 'demo@example.com', password: 'demo-password' };
export const DEMO_CLIENT = {
  clientId: 'demo-client',
  clientSecret: 'demo-client-secret',
  redirectUri: 'http://localhost:3000/callback',
};

export const bearer = (key: string): Record<string, string> => ({ Authorization: `Bearer ${key}` });
