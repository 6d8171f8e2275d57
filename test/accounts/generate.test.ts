import { faker } from '@faker-js/faker/locale/en_US';

import { generateAccount } from '../../src/accounts/generate.js';
import { cryptoIds } from '../../src/core/ids.js';

const NOW = new Date('2026-03-10T15:30:00Z');

/** What a seed chooses of a generated account: everything but its ids and secrets. */
function household(seed: number): unknown {
  const { doc } = generateAccount({ seed, locationCount: 3 }, cryptoIds, NOW);
  return {
    name: doc.account.name,
    user: [doc.users[0]!.name, doc.users[0]!.email.split('.')[0]],
    locations: doc.locations.map(({ name, timeZone, installDate, profile }) => ({
      name,
      timeZone,
      installDate,
      profile,
    })),
  };
}

describe('a generated account', () => {
  it('is the same household for the same seed, whatever was generated before it', () => {
    const first = household(7);
    household(3);
    faker.seed(1);
    faker.person.fullName();
    expect(household(7)).toEqual(first);
    expect(household(8)).not.toEqual(first);
  });

  it('leaves the shared faker instance alone (the accounts have one of their own)', () => {
    faker.seed(99);
    const expected = [faker.number.int(), faker.number.int()];
    faker.seed(99);
    const drawn = [faker.number.int()];
    household(7);
    drawn.push(faker.number.int());
    expect(drawn).toEqual(expected);
  });
});
