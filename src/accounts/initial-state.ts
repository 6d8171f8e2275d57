import { createHash } from 'node:crypto';

import { hashPassword } from '../core/passwords.js';
import { emptyAccountDoc, type AccountDoc, type LocationRecord, type OAuthClientRecord } from '../store/data.js';
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

/** The document of a fixture account as the fixtures describe it. */
export function accountDocFromFixture(fixture: AccountFixture, now: Date): AccountDoc {
  const locations = fixture.locations.map((l) => locationFromFixture(fixture.accountId, l));
  const doc = emptyAccountDoc({
    accountId: fixture.accountId,
    name: fixture.name,
    origin: 'fixture',
    initialLocations: structuredClone(locations),
    createdAt: now.toISOString(),
  });
  doc.locations = locations;
  doc.apiKeys = fixture.apiKeys.map((apiKey) => ({ apiKey, accountId: fixture.accountId }));
  for (const [index, user] of fixture.users.entries()) {
    doc.users.push({
      // Fixture users get stable ids so sessions and tokens survive an admin reset's reload.
      userId: `${fixture.accountId}:user:${index}`,
      accountId: fixture.accountId,
      email: user.email,
      name: user.name,
      passwordHash: hashPassword(user.password),
    });
  }
  return doc;
}

/** The OAuth clients of the fixtures, shared by every account, by clientId. */
export function fixtureClientsOf(fixtures: FixtureSet, now: Date): Map<string, OAuthClientRecord> {
  return new Map(
    fixtures.oauthClients.map((c) => [
      c.clientId,
      {
        clientId: c.clientId,
        clientSecret: c.clientSecret,
        applicationName: c.applicationName,
        redirectUris: [...c.redirectUris],
        signOutUris: [...c.signOutUris],
        postTokenToRedirectUri: true,
        createdAt: now.toISOString(),
      },
    ]),
  );
}

/** Identifies the content of the fixtures, so a start-up can tell that they changed since the state was made. */
export function fixturesFingerprint(fixtures: FixtureSet): string {
  return createHash('sha256').update(JSON.stringify(fixtures)).digest('base64url').slice(0, 22);
}
