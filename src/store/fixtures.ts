import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { z } from 'zod';

import { isTimeZone } from '../core/time-zones.js';

/** Fixture files: `*.json` in FIXTURES_DIR, each with `accounts` and/or `oauthClients`. */

export const API_KEY_PATTERN = /^[A-Za-z0-9_-]{40,128}$/;

const nonEmpty = z.string().trim().min(1, 'must not be empty');
const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date as YYYY-MM-DD')
  .refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)), 'must be a real calendar date');

export const deviceFixtureSchema = z.strictObject({
  deviceId: z.uuid('must be a UUID'),
  type: z.literal('monitor', 'must be "monitor", the only device type production documents'),
  connected: z.boolean().default(true),
  calibrated: z.boolean().default(true),
});

export const usageProfileSchema = z.strictObject({
  householdSize: z.int('must be a whole number').min(1, 'must be at least 1').max(12, 'must be at most 12'),
  irrigation: z
    .strictObject({
      months: z.array(z.int().min(1).max(12)).min(1, 'must name at least one month (1-12)'),
      startHour: z.int().min(0).max(23),
      gallonsPerDay: z.number().positive().max(2000),
      weekdays: z.array(z.int().min(0).max(6)).min(1, 'must name at least one weekday (0 = Sunday)'),
    })
    .optional(),
  scale: z.number().positive().max(10).optional(),
});

export const locationFixtureSchema = z.strictObject({
  locationId: z.uuid('must be a UUID'),
  name: nonEmpty,
  homeAway: z.enum(['home', 'away'], 'must be "home" or "away"').default('home'),
  timeZone: z.string().refine(isTimeZone, 'must be an IANA time zone name such as America/New_York'),
  installDate: isoDate,
  profile: usageProfileSchema,
  devices: z.array(deviceFixtureSchema).min(1, 'must list at least one device'),
});

const userFixtureSchema = z.strictObject({
  email: z.email('must be an e-mail address').transform((e) => e.toLowerCase()),
  password: z.string().min(8, 'must have at least 8 characters'),
  name: nonEmpty,
});

const accountFixtureSchema = z.strictObject({
  accountId: z.uuid('must be a UUID'),
  name: nonEmpty,
  apiKeys: z.array(z.string().regex(API_KEY_PATTERN, 'must be 40 to 128 URL-safe characters (A-Z a-z 0-9 _ -)')).min(1),
  users: z.array(userFixtureSchema).default([]),
  locations: z.array(locationFixtureSchema).default([]),
});

const redirectUri = z.string().refine((u) => URL.canParse(u), 'must be an absolute URI');

const oauthClientFixtureSchema = z.strictObject({
  clientId: nonEmpty,
  clientSecret: z.string().min(8, 'must have at least 8 characters'),
  applicationName: nonEmpty,
  redirectUris: z.array(redirectUri).min(1, 'must list at least one redirect URI'),
  signOutUris: z.array(redirectUri).default([]),
});

const fixtureFileSchema = z.strictObject({
  accounts: z.array(accountFixtureSchema).default([]),
  oauthClients: z.array(oauthClientFixtureSchema).default([]),
});

export type AccountFixture = z.infer<typeof accountFixtureSchema>;
export type LocationFixture = z.infer<typeof locationFixtureSchema>;
export type OAuthClientFixture = z.infer<typeof oauthClientFixtureSchema>;
export interface FixtureSet {
  accounts: AccountFixture[];
  oauthClients: OAuthClientFixture[];
}

export class FixtureError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid fixtures:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'FixtureError';
  }
}

/** `accounts[0].locations[1].timeZone` from a zod path. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)),
    '',
  );
}

/** Parses one file's JSON text; problems are named by file and path. */
export function parseFixtureFile(file: string, text: string): { fixtures: FixtureSet; problems: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return {
      fixtures: { accounts: [], oauthClients: [] },
      problems: [`${file}: not valid JSON (${(error as Error).message})`],
    };
  }
  const parsed = fixtureFileSchema.safeParse(json);
  if (parsed.success) return { fixtures: parsed.data, problems: [] };
  return {
    fixtures: { accounts: [], oauthClients: [] },
    problems: parsed.error.issues.map((issue) => `${file}: ${formatPath(issue.path) || '(root)'}: ${issue.message}`),
  };
}

/** Loads and validates every `*.json` file of the folder, then checks uniqueness across files. */
export async function loadFixtures(dir: string): Promise<FixtureSet> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.json')).sort();
  } catch (error) {
    throw new FixtureError([`FIXTURES_DIR ${dir} cannot be read: ${(error as Error).message}`]);
  }
  if (names.length === 0) throw new FixtureError([`FIXTURES_DIR ${dir} has no *.json files`]);
  const set: FixtureSet = { accounts: [], oauthClients: [] };
  const problems: string[] = [];
  for (const name of names) {
    const file = join(dir, name);
    const result = parseFixtureFile(file, await readFile(file, 'utf8'));
    problems.push(...result.problems);
    set.accounts.push(...result.fixtures.accounts);
    set.oauthClients.push(...result.fixtures.oauthClients);
  }
  problems.push(...findDuplicates(set));
  if (problems.length > 0) throw new FixtureError(problems);
  return set;
}

export function findDuplicates(set: FixtureSet): string[] {
  const problems: string[] = [];
  const check = (what: string, values: string[]): void => {
    const seen = new Set<string>();
    for (const value of values) {
      if (seen.has(value)) problems.push(`${what} ${JSON.stringify(value)} appears more than once`);
      seen.add(value);
    }
  };
  check(
    'accountId',
    set.accounts.map((a) => a.accountId),
  );
  check(
    'API key',
    set.accounts.flatMap((a) => a.apiKeys),
  );
  check(
    'user e-mail',
    set.accounts.flatMap((a) => a.users.map((u) => u.email)),
  );
  check(
    'locationId',
    set.accounts.flatMap((a) => a.locations.map((l) => l.locationId)),
  );
  check(
    'deviceId',
    set.accounts.flatMap((a) => a.locations.flatMap((l) => l.devices.map((d) => d.deviceId))),
  );
  check(
    'clientId',
    set.oauthClients.map((c) => c.clientId),
  );
  return problems;
}
