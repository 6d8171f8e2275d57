import { z } from 'zod';

import { operationsTagged } from '../http/operation.js';
import { booleanQuery, isoInstant, limitParam, queryText } from '../http/schemas.js';
import { JOURNAL_LIMIT } from '../store/store.js';

export const JournalQuery = z.object({
  limit: limitParam(JOURNAL_LIMIT, JOURNAL_LIMIT, 'At most this many entries.'),
  method: queryText('method')
    .transform((text) => text.toUpperCase())
    .optional()
    .meta({ description: 'Only this method (any case).', examples: ['GET'] }),
  path: queryText('path')
    .optional()
    .meta({ description: 'Only paths starting with this.', examples: ['/v1/locations'] }),
  status: queryText('status')
    .regex(/^[1-5]\d\d$/, 'status must be an HTTP status code such as 404')
    .transform(Number)
    .optional()
    .meta({ type: 'integer', minimum: 100, maximum: 599, description: 'Only this status.' }),
  errorsOnly: booleanQuery('errorsOnly', 'Only requests answered with a status of 400 or more (true).'),
});

export const JournalEntry = z
  .strictObject({
    method: z.string(),
    path: z.string(),
    query: z.record(z.string(), z.unknown()).meta({ description: 'The query parameters as received.' }),
    status: z.int(),
    time: isoInstant.meta({ description: 'When, on the account clock.' }),
    durationMs: z.number().min(0),
    auth: z.enum(['api_key', 'access_token', 'client']).meta({
      description:
        'How the call identified itself: the API key, an access token (also one refused as expired), or an OAuth client at /oauth2/token.',
    }),
    errorBody: z.string().nullable().meta({
      description:
        'For an answer of 400 or more, the first 1,000 characters of its body (the error the app got); null otherwise.',
    }),
  })
  .meta({ description: 'One API request of the account.' });

export const JournalList = z
  .strictObject({ requests: z.array(JournalEntry) })
  .meta({ description: "The account's recent requests, newest first." });

const operation = operationsTagged('Sandbox: journal', 'account');

export const listRequestsOp = operation('listRequests', 'GET /sandbox/requests', {
  secrets: 'the queries received (a confirmation token among them)',
  summary: "The account's recent API requests",
  description:
    `The journal keeps the account's last ${JOURNAL_LIMIT} requests made with its credentials, newest first: /v1 and /sandbox calls (not this call, not the dashboard's polling), ` +
    "/v1 calls with one of its access tokens that had expired, and token requests (/oauth2/token) for its users' grants.",
  query: JournalQuery,
  queryExample: { limit: '5' },
  responses: { 200: { description: 'The matching requests.', schema: JournalList } },
  errors: { 400: 'invalid_parameter: limit, status or errorsOnly is not valid.' },
});

export const journalOperations = [listRequestsOp];
