import { hashPassword } from '../core/passwords.js';
import { emptyData, type AccountRecord, type Data, type LocationRecord, type OAuthClientRecord } from '../store/data.js';
import type { AccountFixture, FixtureSet, LocationFixture } from '../store/fixtures.js';

export function locationFromFixture(accountId: string, fixture: LocationFixture): LocationRecord {
  return {
    locationId: fixture.locationId,
    accountId,
    name: fixture.name,
    homeAway: fixture.homeAway,
    timeZone: fixture.timeZone,
    installDate: fixture.installDate,
    profile: structuredClone(fixture.profile) as LocationRecord['profile'],
    devices: fixture.devices.map((d) => ({ ...d })),
  };
}

async function addFixtureAccount(data: Data, fixture: AccountFixture, now: Date): Promise<void> {
  const locations = fixture.locations.map((l) => locationFromFixture(fixture.accountId, l));
  const account: AccountRecord = {
    accountId: fixture.accountId,
    name: fixture.name,
    origin: 'fixture',
    initialLocations: structuredClone(locations),
    createdAt: now.toISOString(),
  };
  data.accounts.push(account);
  data.apiKeys.push(...fixture.apiKeys.map((apiKey) => ({ apiKey, accountId: fixture.accountId })));
  data.locations.push(...locations);
  for (const [index, user] of fixture.users.entries()) {
    data.users.push({
      // Fixture users get stable ids so sessions and tokens survive an admin reset's reload.
      userId: `${fixture.accountId}:user:${index}`,
      accountId: fixture.accountId,
      email: user.email,
      name: user.name,
      passwordHash: await hashPassword(user.password),
    });
  }
}

function clientFromFixture(fixture: FixtureSet['oauthClients'][number], now: Date): OAuthClientRecord {
  return {
    clientId: fixture.clientId,
    clientSecret: fixture.clientSecret,
    applicationName: fixture.applicationName,
    redirectUris: [...fixture.redirectUris],
    signOutUris: [...fixture.signOutUris],
    postTokenToRedirectUri: true,
    createdAt: now.toISOString(),
  };
}

/** The state of a store seeded from the fixtures. */
export async function buildInitialData(fixtures: FixtureSet, now: Date): Promise<Data> {
  const data = emptyData();
  for (const account of fixtures.accounts) await addFixtureAccount(data, account, now);
  data.oauthClients.push(...fixtures.oauthClients.map((c) => clientFromFixture(c, now)));
  return data;
}
