import type { z } from 'zod';

import { capReached, present, rateLimited, storageFull } from '../core/errors.js';
import type { Ids } from '../core/ids.js';
import { presentLocation } from '../locations/index.js';
import { AccountsFullError, IndexConflictError } from '../store/store.js';
import { generateAccount, type GeneratedAccount } from './generate.js';
import { resetAccount, type LifecycleDeps } from './lifecycle.js';
import type { AccountCreate, CreatedAccount } from './operations.js';

export interface AccountsDeps extends LifecycleDeps {
  ids: Ids;
  config: LifecycleDeps['config'] & {
    readonly seed: number;
    readonly adminToken: string | null;
    readonly hosted: boolean;
    readonly metricsOpen: boolean;
    readonly limits: {
      readonly accountCreationsPerHour: number;
      readonly accountCreationsPerPrefixPerHour: number;
      readonly accounts: number;
      readonly locationsPerAccount: number;
    };
  };
}

const CREATION_WINDOW_MS = 3_600_000;

/**
 * ACCOUNT_CREATION_LIMIT: while account creation is open (no ADMIN_TOKEN), each client address
 * may create this many accounts per hour (fixed windows of the process clock, counted in the
 * store, so one limit across replicas); 0 = none. ACCOUNT_CREATION_PREFIX_LIMIT counts an IPv6
 * client's /48 beside its /64, so a site with 65,536 /64s gets a few /64s' worth, not 65,536.
 */
async function checkCreationRate(deps: AccountsDeps, address: string, network: string | null): Promise<void> {
  if (deps.config.adminToken !== null) return;
  const { accountCreationsPerHour, accountCreationsPerPrefixPerHour } = deps.config.limits;
  const nowMs = deps.clock.now().getTime();
  const window = Math.floor(nowMs / CREATION_WINDOW_MS);
  const retryAfter = Math.max(1, Math.ceil(((window + 1) * CREATION_WINDOW_MS - nowMs) / 1000));
  const counted = async (key: string): Promise<number> =>
    deps.store.counters.increment(`${key}:${window}`, CREATION_WINDOW_MS);
  if (accountCreationsPerHour > 0 && (await counted(`account-create:${address}`)) > accountCreationsPerHour) {
    throw rateLimited(
      'ACCOUNT_CREATION_LIMIT',
      `Too many accounts created from this address: this sandbox allows ${accountCreationsPerHour} an hour (ACCOUNT_CREATION_LIMIT=${accountCreationsPerHour}); try again in ${retryAfter} s, or ask its operator for the ADMIN_TOKEN`,
      retryAfter,
    );
  }
  const prefixLimit = accountCreationsPerPrefixPerHour;
  if (network !== null && prefixLimit > 0 && (await counted(`account-create-net:${network}`)) > prefixLimit) {
    throw rateLimited(
      'ACCOUNT_CREATION_PREFIX_LIMIT',
      `Too many accounts created from this network: this sandbox allows ${prefixLimit} an hour per IPv6 /48 (ACCOUNT_CREATION_PREFIX_LIMIT=${prefixLimit}); try again in ${retryAfter} s, or ask its operator for the ADMIN_TOKEN`,
      retryAfter,
    );
  }
}

const CREATE_ATTEMPTS = 3;

/** Generates and stores an account; a random e-mail, key or id that is taken already is made again. */
async function createGeneratedAccount(
  deps: AccountsDeps,
  input: Parameters<typeof generateAccount>[0],
): Promise<GeneratedAccount> {
  for (let attempt = 1; ; attempt++) {
    const generated = generateAccount(input, deps.ids, deps.clock.now());
    const maxAccounts = deps.config.limits.accounts;
    try {
      await deps.store.accounts.create(generated.doc, [], maxAccounts === 0 ? {} : { maxAccounts });
      return generated;
    } catch (error) {
      if (error instanceof AccountsFullError) {
        throw storageFull(
          'MAX_ACCOUNTS',
          `This sandbox holds ${maxAccounts} accounts, the most it allows (MAX_ACCOUNTS=${maxAccounts}); accounts unused for ACCOUNT_TTL are deleted, so try again later, or ask its operator to raise MAX_ACCOUNTS`,
        );
      }
      if (!(error instanceof IndexConflictError) || attempt === CREATE_ATTEMPTS) throw error;
    }
  }
}

/**
 * Creates a fresh account as POST /sandbox/accounts does (with 201), under its limits: at most
 * MAX_LOCATIONS_PER_ACCOUNT locations, ACCOUNT_CREATION_LIMIT accounts an hour from the client's
 * address (and ACCOUNT_CREATION_PREFIX_LIMIT from its IPv6 /48) while creation is open, and
 * MAX_ACCOUNTS in all. Whoever calls it has passed the ADMIN_TOKEN check.
 */
export async function createAccountAnswer(
  deps: AccountsDeps,
  body: z.output<typeof AccountCreate>,
  clientAddress: string,
  clientNetwork: string | null,
): Promise<z.output<typeof CreatedAccount>> {
  const {
    seed = deps.config.seed,
    locations: locationCount = Math.min(2, deps.config.limits.locationsPerAccount),
    name,
  } = body;
  const cap = deps.config.limits.locationsPerAccount;
  if (locationCount > cap) {
    throw capReached(
      'MAX_LOCATIONS_PER_ACCOUNT',
      `locations must be at most ${cap} on this sandbox (MAX_LOCATIONS_PER_ACCOUNT=${cap}); got ${locationCount}`,
      'locations',
    );
  }
  await checkCreationRate(deps, clientAddress, clientNetwork);
  const { doc, password } = await createGeneratedAccount(deps, {
    seed,
    locationCount,
    ...(name === undefined ? {} : { name }),
  });
  const user = present(doc.users[0], 'the generated user');
  return {
    accountId: doc.account.accountId,
    name: doc.account.name,
    seed,
    apiKey: present(doc.apiKeys[0], 'the generated API key').apiKey,
    user: { email: user.email, password },
    locations: doc.locations.map((l) => presentLocation(doc, l)),
  };
}

/** Puts the account back to its initial state, as POST /sandbox/reset does, and answers its locations. */
export async function resetAccountAnswer(deps: AccountsDeps, accountId: string) {
  const { doc, revokedApps } = await resetAccount(deps, accountId);
  return {
    reset: accountId,
    locations: doc.locations.map((l) => presentLocation(doc, l)),
    revokedApps,
    credentials:
      "Kept: the account's API keys, users, OAuth clients and their access and refresh tokens. Revoked: every application of another account that its users allowed, with its access and refresh tokens (its users are asked again).",
  };
}
