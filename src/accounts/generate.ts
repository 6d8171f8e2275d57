import type { Faker } from '@faker-js/faker';
// The en_US entry loads one locale; the package root loads them all (a fifth of a second at start-up).
import { faker as enUsFaker } from '@faker-js/faker/locale/en_US';

import { present } from '../core/errors.js';
import type { Ids } from '../core/ids.js';
import { hashPassword } from '../core/passwords.js';
import { emptyAccountDoc, type AccountDoc, type LocationRecord } from '../store/data.js';

/** Zones for generated locations: mostly US zones with daylight saving time, and Phoenix without. */
const TIME_ZONES = ['America/New_York', 'America/Chicago', 'America/Denver', 'America/Los_Angeles', 'America/Phoenix'];
const PLACE_KINDS = ['Home', 'House', 'Cottage', 'Apartment', 'Cabin', 'Duplex'];

/**
 * The seed gives every account of one seed the same user name, so the random part alone keeps
 * e-mails apart: 40 bits (ten hex digits), so that a collision is rare even among millions of
 * accounts; the route still makes a fresh one when it happens.
 */
function generatedEmail(userName: string, ids: Ids): string {
  return `${userName.toLowerCase().replace(/[^a-z0-9._-]/g, '')}.${ids.uuid().replace(/-/g, '').slice(0, 10)}@sandbox.example`;
}

/**
 * The Faker accounts are made with, with the en_US data: the class and the locale come from the
 * en_US entry's instance, which exports no class (the package root does, but loads every
 * locale). Made once: a Faker binds every method of its modules when made, about a tenth of an
 * account's creation.
 */
let accountFaker: Faker | null = null;

/**
 * The accounts' Faker seeded with `seed`: what it makes depends on the seed alone, never on the
 * accounts made before it, since its only state is the generator the seed resets, and an account
 * is made synchronously from its seeding on (see generateAccount). For a given seed it makes what
 * the en_US instance seeded with it makes.
 */
function seededFaker(seed: number): Faker {
  if (accountFaker === null) {
    const FakerOfEnUs = enUsFaker.constructor as new (options: ConstructorParameters<typeof Faker>[0]) => Faker;
    accountFaker = new FakerOfEnUs({ locale: enUsFaker.rawDefinitions });
  }
  accountFaker.seed(seed);
  return accountFaker;
}

export interface GeneratedAccount {
  doc: AccountDoc;
  password: string;
}

/**
 * A fresh account for POST /sandbox/accounts. Names, time zones, install dates and usage
 * profiles come from faker seeded with `seed`, so the same seed describes the same household;
 * ids and secrets are random (two accounts made with one seed must not collide).
 */
export function generateAccount(
  input: { seed: number; locationCount: number; name?: string },
  ids: Ids,
  now: Date,
): GeneratedAccount {
  const faker = seededFaker(input.seed);
  const accountId = ids.uuid();
  const lastName = faker.person.lastName();
  const locations: LocationRecord[] = Array.from({ length: input.locationCount }, (_, index) => {
    const street = faker.location.street();
    const installYearsAgo = faker.number.int({ min: 1, max: 4 });
    const installDate = new Date(
      Date.UTC(
        now.getUTCFullYear() - installYearsAgo,
        faker.number.int({ min: 0, max: 11 }),
        faker.number.int({ min: 1, max: 28 }),
      ),
    );
    const irrigated = faker.datatype.boolean({ probability: 0.5 });
    return {
      locationId: ids.uuid(),
      accountId,
      name: `${street} ${faker.helpers.arrayElement(PLACE_KINDS)}`,
      homeAway: 'home',
      // The first two locations are in different zones, as the demo account's are.
      timeZone: present(
        TIME_ZONES[(faker.number.int({ min: 0, max: TIME_ZONES.length - 1 }) + index) % TIME_ZONES.length],
        'a time zone',
      ),
      installDate: installDate.toISOString().slice(0, 10),
      profile: {
        householdSize: faker.number.int({ min: 1, max: 6 }),
        ...(irrigated
          ? {
              irrigation: {
                months: [5, 6, 7, 8, 9],
                startHour: faker.number.int({ min: 4, max: 6 }),
                gallonsPerDay: faker.number.int({ min: 60, max: 220 }),
                weekdays: [1, 3, 5],
              },
            }
          : {}),
      },
      devices: [{ deviceId: ids.uuid(), type: 'monitor', connected: true, calibrated: true }],
    };
  });
  const password = ids.secret(12);
  const doc = emptyAccountDoc({
    accountId,
    name: input.name ?? `${lastName} Household`,
    origin: 'generated',
    initialLocations: structuredClone(locations),
    createdAt: now.toISOString(),
  });
  doc.locations = locations;
  doc.users.push({
    userId: ids.uuid(),
    accountId,
    email: generatedEmail(faker.internet.username({ lastName }), ids),
    name: `${faker.person.firstName()} ${lastName}`,
    passwordHash: hashPassword(password),
  });
  // About 54 URL-safe characters, like production's keys.
  doc.apiKeys.push({ apiKey: `sbx_${ids.secret(38)}`, accountId });
  return { doc, password };
}
