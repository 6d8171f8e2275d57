import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { FixtureError, loadFixtures } from '../../src/store/fixtures.js';
import { DEMO_API_KEY, OTHER_API_KEY } from '../helpers/demo.js';

async function dirWith(files: Record<string, unknown>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'fixtures-'));
  for (const [name, content] of Object.entries(files))
    await writeFile(join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
  return dir;
}

async function problemsOf(dir: string): Promise<string[]> {
  try {
    await loadFixtures(dir);
  } catch (error) {
    if (error instanceof FixtureError) return error.problems;
    throw error;
  }
  throw new Error('expected the fixtures to be refused');
}

describe('the shipped fixtures', () => {
  it('load, validate, and hold the documented demo data', async () => {
    const set = await loadFixtures('fixtures');
    const keys = set.accounts.flatMap((a) => a.apiKeys);
    expect(keys).toEqual(expect.arrayContaining([DEMO_API_KEY, OTHER_API_KEY]));
    const demo = set.accounts.find((a) => a.apiKeys.includes(DEMO_API_KEY))!;
    expect(demo.users.map((u) => u.email)).toContain('demo@example.com');
    expect(demo.locations.length).toBeGreaterThanOrEqual(2);
    expect(new Set(demo.locations.map((l) => l.timeZone)).size).toBeGreaterThanOrEqual(2);
    for (const location of demo.locations) expect(location.devices.length).toBeGreaterThanOrEqual(1);
    const client = set.oauthClients.find((c) => c.clientId === 'demo-client')!;
    expect(client.clientSecret).toBe('demo-client-secret');
    expect(client.redirectUris).toEqual(
      expect.arrayContaining([
        'https://localhost:3000/callback',
        'http://localhost:3000/callback',
        'http://127.0.0.1:3000/callback',
        'waterapp://callback',
      ]),
    );
    expect(client.signOutUris).toEqual(
      expect.arrayContaining(['https://localhost:3000/signed-out', 'http://localhost:3000/signed-out']),
    );
  });

  it('put the demo locations in time zones that observe daylight saving time', async () => {
    const set = await loadFixtures('fixtures');
    const demo = set.accounts.find((a) => a.apiKeys.includes(DEMO_API_KEY))!;
    const offsetName = (zone: string, iso: string): string =>
      new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'shortOffset' })
        .formatToParts(new Date(iso))
        .find((p) => p.type === 'timeZoneName')!.value;
    for (const { timeZone } of demo.locations)
      expect(offsetName(timeZone, '2026-01-15T12:00:00Z')).not.toBe(offsetName(timeZone, '2026-07-15T12:00:00Z'));
  });
});

describe('a broken fixtures folder', () => {
  const location = {
    locationId: '2f1f3f5e-6b1f-4c43-9d4c-0f3e2b8d9a11',
    name: 'Home',
    timeZone: 'America/Chicago',
    installDate: '2024-01-01',
    profile: { householdSize: 2 },
    devices: [{ deviceId: '7c9e6679-7425-40de-944b-e07fc1f90ae7', type: 'monitor' }],
  };
  const account = {
    accountId: '5f0c8c3a-3f4e-4c1e-8b0a-6f7d2e9c1b23',
    name: 'A',
    apiKeys: ['k'.repeat(44)],
    locations: [location],
  };

  it('names the file and the path of each problem', async () => {
    const dir = await dirWith({
      'broken.json': {
        accounts: [{ ...account, locations: [{ ...location, timeZone: 'Mars/Olympus', devices: [] }] }],
      },
    });
    const problems = await problemsOf(dir);
    expect(problems).toEqual([
      `${join(dir, 'broken.json')}: accounts[0].locations[0].timeZone: must be an IANA time zone name such as America/New_York`,
      `${join(dir, 'broken.json')}: accounts[0].locations[0].devices: must list at least one device`,
    ]);
  });

  it('reports invalid JSON with the file name', async () => {
    const dir = await dirWith({ 'bad.json': '{ "accounts": [' });
    const [problem] = await problemsOf(dir);
    expect(problem).toContain(`${join(dir, 'bad.json')}: not valid JSON`);
  });

  it('refuses unknown keys, short API keys and ids that are not UUIDs', async () => {
    const dir = await dirWith({
      'a.json': { accounts: [{ ...account, accountId: 'acc-1', apiKeys: ['short'], colour: 'blue' }] },
    });
    const problems = (await problemsOf(dir)).join('\n');
    expect(problems).toContain('accounts[0].accountId: must be a UUID');
    expect(problems).toContain('accounts[0].apiKeys[0]: must be 40 to 128 URL-safe characters');
    expect(problems).toContain('colour');
  });

  it('refuses ids and keys that repeat across files', async () => {
    const dir = await dirWith({ 'a.json': { accounts: [account] }, 'b.json': { accounts: [account] } });
    const problems = await problemsOf(dir);
    expect(problems).toEqual(
      expect.arrayContaining([
        `accountId "${account.accountId}" appears more than once`,
        `API key "${account.apiKeys[0]!}" appears more than once`,
      ]),
    );
  });

  it('refuses an empty folder', async () => {
    const dir = await dirWith({});
    expect((await problemsOf(dir))[0]).toContain('has no *.json files');
  });
});
