import { z } from 'zod';

import { operationsTagged } from '../http/operation.js';
import { isoInstant, jsonObject, limitParam, queryText, wholeNumberField } from '../http/schemas.js';
import { Location } from '../locations/index.js';
import { MAX_GENERATED_LOCATIONS } from './bounds.js';

export const DEFAULT_ADMIN_PAGE = 100;
const MAX_ADMIN_PAGE = 1000;

/** A body of only `allowed` fields; no body at all is an empty one. */
const optionalObject = <S extends z.ZodRawShape>(shape: S, example: string) => {
  const body = jsonObject(shape, {
    notObject: `The request body must be a JSON object such as ${example}`,
    unknownKeys: (keys) => `Unknown field ${JSON.stringify(keys[0])}; allowed: ${Object.keys(shape).join(', ')}`,
  });
  // Every field is optional, so no body reads as {}.
  return body.optional().transform((value) => value ?? ({} as z.output<typeof body>));
};

export const AccountCreate = optionalObject(
  {
    seed: wholeNumberField(
      'seed',
      0,
      4294967295,
      'Chooses the household (names, time zones, household sizes, irrigation); default SEED.',
    ).optional(),
    locations: wholeNumberField('locations', 1, MAX_GENERATED_LOCATIONS, 'How many locations (default 2).').optional(),
    name: z
      .string({ error: 'name must be a non-empty string of at most 200 characters' })
      .refine(
        (name) => name.trim() !== '' && name.length <= 200,
        'name must be a non-empty string of at most 200 characters',
      )
      .transform((name) => name.trim())
      .optional()
      .meta({ description: "The account's name; default a generated household name." }),
  },
  '{"seed": 7, "locations": 2}',
);

export const TokensExpire = optionalObject(
  {
    accessToken: z
      .string({ error: 'accessToken must be a string' })
      .optional()
      .meta({ description: 'Expire only this access token of the account.' }),
  },
  '{"accessToken": "..."}',
);

export const AdminAccountsQuery = z.object({
  limit: limitParam(MAX_ADMIN_PAGE, DEFAULT_ADMIN_PAGE, 'Accounts per page.'),
  after: queryText('after').optional().meta({ description: 'The `next` of the previous page.' }),
});

export const CreatedAccount = z
  .strictObject({
    accountId: z.string(),
    name: z.string(),
    seed: z.int(),
    apiKey: z.string().meta({ description: "The account's API key: Authorization: Bearer <apiKey>." }),
    user: z
      .strictObject({ email: z.string(), password: z.string() })
      .meta({ description: 'A user for the login form (OAuth) and the dashboard.' }),
    locations: z.array(Location),
  })
  .meta({ description: 'A fresh account with its credentials.' });

export const AdminAccounts = z
  .strictObject({
    total: z.int().min(0),
    accounts: z.array(
      z.strictObject({
        accountId: z.string(),
        name: z.string(),
        origin: z.enum(['fixture', 'generated']),
        createdAt: isoInstant,
        lastRequestAt: isoInstant.nullable(),
        locations: z.int().min(0),
        subscriptions: z.int().min(0),
        users: z.array(z.string()).meta({ description: "The users' e-mail addresses." }),
      }),
    ),
    next: z.string().nullable().meta({ description: 'Give it as `after` for the next page; null on the last.' }),
  })
  .meta({ description: 'A page of every account of the sandbox.' });

const operation = operationsTagged('Sandbox: accounts', 'admin');
const ADMIN_DISABLED =
  'admin_disabled: a hosted sandbox (PUBLIC_URL not loopback) without ADMIN_TOKEN has its global admin operations off.';

export const createAccountOp = operation('createAccount', 'POST /sandbox/accounts', {
  secrets: "the account's API key and its user's password",
  summary: 'Create a fresh, isolated account',
  description:
    'For CI: one account per test run, no shared state. Needs no credentials unless ADMIN_TOKEN is set. The same seed gives the same household; ids and secrets are always new. ' +
    'Unused accounts are deleted after ACCOUNT_TTL.',
  body: { schema: AccountCreate, required: false, example: { seed: 7, locations: 2 } },
  responses: {
    201: { description: 'The account, its API key, a login user and its locations.', schema: CreatedAccount },
  },
  errors: {
    400: 'invalid_parameter: seed, locations or name is not valid, or an unknown field.',
    409: 'limit_reached: more locations than MAX_LOCATIONS_PER_ACCOUNT allows (a hosted sandbox: 5 by default).',
    429: 'rate_limited: this client address created ACCOUNT_CREATION_LIMIT accounts this hour (a hosted sandbox without ADMIN_TOKEN: 20 by default); Retry-After says when to try again.',
  },
});

export const listAccountsOp = operation('listAccounts', 'GET /sandbox/admin/accounts', {
  summary: 'Every account of the sandbox',
  query: AdminAccountsQuery,
  responses: { 200: { description: 'A page of accounts.', schema: AdminAccounts } },
  errors: {
    400: 'invalid_parameter: limit is not valid.',
    403: ADMIN_DISABLED,
  },
});

export const resetAllOp = operation('resetAll', 'POST /sandbox/admin/reset', {
  summary: 'Every account back to the fixtures',
  description: 'Generated accounts are deleted; fixture accounts are made again from the fixtures.',
  responses: {
    200: {
      description: 'How many accounts there are now.',
      schema: z.strictObject({ reset: z.literal('all'), accounts: z.int().min(0) }),
    },
  },
  errors: {
    403: ADMIN_DISABLED,
  },
});

export const resetAccountOp = operation('resetAccount', 'POST /sandbox/reset', {
  summary: 'The calling account back to its initial state',
  description:
    "Locations as made, and no subscriptions, alerts, deliveries, journal, clock offset, faults or scenario runs. The account's own API keys, users, OAuth clients and their access and refresh tokens stay. " +
    "The applications of other accounts that its users allowed are revoked, their access and refresh tokens ended: a stranger's grant is not part of a known state.",
  guard: 'account',
  responses: {
    200: {
      description: "The account's id and its locations, and what became of its credentials.",
      schema: z.strictObject({
        reset: z.string().meta({ description: 'The account id.' }),
        locations: z.array(Location),
        revokedApps: z
          .int()
          .min(0)
          .meta({ description: 'Applications of other accounts revoked (GET /sandbox/connected-apps listed them).' }),
        credentials: z.string().meta({ description: 'What the reset kept and what it revoked, in words.' }),
      }),
    },
  },
});

export const expireTokensOp = operation('expireTokens', 'POST /sandbox/tokens/expire', {
  summary: "Expire the account's access tokens now",
  description:
    'Every access token of the account, or only {"accessToken"}; calls with them then get 403 token_expired, and clients must refresh. ' +
    "Refresh tokens are not changed: a refresh gets a new access token, which is what this call is for (testing the refresh path). To end an application's access, revoke it (DELETE /sandbox/connected-apps/{clientId}).",
  guard: 'account',
  body: { schema: TokensExpire, required: false, example: {} },
  responses: {
    200: {
      description: 'How many access tokens were expired, and what became of the refresh tokens.',
      schema: z.strictObject({
        expired: z.int().min(0),
        refreshTokens: z.string().meta({ description: 'What the call did to refresh tokens (nothing), in words.' }),
      }),
    },
  },
  errors: {
    400: 'invalid_parameter: accessToken is not a string, or an unknown field.',
    404: 'not_found: no such access token in this account.',
  },
});

export const accountsOperations = [createAccountOp, listAccountsOp, resetAllOp, resetAccountOp, expireTokensOp];
