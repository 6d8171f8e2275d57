import { z } from 'zod';

/**
 * Schemas every feature shares: the error bodies, query texts, paging and the list envelope.
 * The messages are the API's messages: a zod issue's message is what the client reads.
 */

/** The error body of /v1 and /sandbox (shaped in http/error-handler.ts). */
export const ErrorBody = z
  .strictObject({
    error: z.string().meta({
      description: 'A stable snake_case code to branch on, e.g. invalid_parameter, not_found, missing_credentials.',
    }),
    message: z.string().meta({
      description: 'A sentence for people: what is wrong, naming the parameter and the rule, and how to fix it.',
    }),
    parameter: z.string().optional().meta({
      description:
        'The input at fault, when one is: a query parameter, a body field (dotted for nested ones) or "body".',
    }),
    problems: z
      .array(z.strictObject({ parameter: z.string(), message: z.string() }))
      .optional()
      .meta({ description: 'Every problem of the body, when there are several (POST /sandbox/oauth-clients).' }),
  })
  .meta({ description: 'Every error of /v1 and /sandbox.' });

/** RFC 6749 section 5.2: the error body of the token endpoint. */
export const OAuthErrorBody = z
  .strictObject({
    error: z.string().meta({
      description:
        'The RFC 6749 code: invalid_request, invalid_client, invalid_grant, unauthorized_client, unsupported_grant_type, or temporarily_unavailable (too many failures).',
    }),
    error_description: z.string().meta({ description: 'What is wrong and how to fix it.' }),
  })
  .meta({ description: 'RFC 6749 section 5.2 error of the token endpoint.' });

/** A query parameter given at most once, as text; `name` is used in the message for a repeated one. */
export const queryText = (name: string) =>
  z.string({
    error: (issue) =>
      issue.input === undefined ? `${name} is required` : `${name} must be given once, as a single value`,
  });

/** A query parameter that is true or false, as the text `true` or `false`. */
export const booleanQuery = (name: string, description: string) =>
  queryText(name)
    .superRefine((text, ctx) => {
      if (text !== 'true' && text !== 'false')
        ctx.addIssue({ code: 'custom', message: `${name} must be true or false; got ${JSON.stringify(text)}` });
    })
    .transform((text) => text === 'true')
    .optional()
    .meta({ type: 'boolean', description });

export const MAX_PER_PAGE = 100;

const WHOLE_NUMBER = /^\d+$/;

/** `page`: 1-based; the text must be a whole number of 1 or more. */
export const pageParam = queryText('page')
  .superRefine((text, ctx) => {
    if (!WHOLE_NUMBER.test(text) || Number(text) < 1) {
      ctx.addIssue({
        code: 'custom',
        message: `page must be a whole number of 1 or more (pages are 1-based; the first page is page=1); got ${JSON.stringify(text)}`,
      });
    }
  })
  .transform(Number)
  .meta({ type: 'integer', minimum: 1, default: 1, description: 'The page, 1-based.' });

/** `perPage`: 1 to 100, with the list's own default. */
export const perPageParam = (defaultPerPage: number) =>
  queryText('perPage')
    .superRefine((text, ctx) => {
      if (!WHOLE_NUMBER.test(text) || Number(text) < 1 || Number(text) > MAX_PER_PAGE) {
        ctx.addIssue({
          code: 'custom',
          message: `perPage must be a whole number from 1 to ${MAX_PER_PAGE}; got ${JSON.stringify(text)}`,
        });
      }
    })
    .transform(Number)
    .meta({
      type: 'integer',
      minimum: 1,
      maximum: MAX_PER_PAGE,
      default: defaultPerPage,
      description: `Items per page, at most ${MAX_PER_PAGE} (default ${defaultPerPage}).`,
    });

/** The paging parameters of a list whose default perPage is `defaultPerPage`. */
export const pagingQuery = (defaultPerPage: number) => ({
  page: pageParam.optional(),
  perPage: perPageParam(defaultPerPage).optional(),
});

/**
 * A whole number in a JSON body, from `min` to `max`, with one message for any other value (a
 * string, a fraction, out of range).
 */
export const wholeNumberField = (name: string, min: number, max: number, description: string) =>
  z
    .unknown()
    .superRefine((value, ctx) => {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
        ctx.addIssue({
          code: 'custom',
          message: `${name} must be a whole number from ${min} to ${max}; got ${JSON.stringify(value)}`,
        });
      }
    })
    .transform((value) => value as number)
    .meta({ type: 'integer', minimum: min, maximum: max, description });

/** `limit` of a list that is not paged (a journal, the admin's accounts): 1 to `max`, `fallback` when absent. */
export const limitParam = (max: number, fallback: number, description: string) =>
  queryText('limit')
    .superRefine((text, ctx) => {
      const limit = Number(text);
      if (!Number.isInteger(limit) || limit < 1 || limit > max)
        ctx.addIssue({ code: 'custom', message: `limit must be a whole number from 1 to ${max}` });
    })
    .transform(Number)
    .optional()
    .meta({ type: 'integer', minimum: 1, maximum: max, default: fallback, description });

/** The first page of a list as `pageEnvelope(key, ...)` describes it, holding `items` of `total`: an example. */
export const examplePage = <K extends string>(
  key: K,
  items: readonly unknown[],
  perPage = 50,
  total = items.length,
) => ({
  page: 1,
  perPage,
  pageCount: Math.ceil(total / perPage),
  total,
  ...({ [key]: items } as Record<K, readonly unknown[]>),
});

/** Errors that operations of several features document (Operation.errors), in their words. */
export const NO_SUCH_LOCATION = 'not_found: no such location in this account.';
export const NO_BODY_TAKEN = 'invalid_parameter: a body was sent.';

/** The list envelope of the API: page, perPage, pageCount, total and the array under `key`. */
export const pageEnvelope = <K extends string, T extends z.ZodType>(key: K, item: T) =>
  z.strictObject({
    page: z.int().min(1).meta({ description: 'This page, 1-based.' }),
    perPage: z.int().min(1).max(MAX_PER_PAGE).meta({ description: 'Items per page.' }),
    // Production documents pageCount as a string but sends a number everywhere; so do we.
    pageCount: z.int().min(0).meta({
      description:
        'Number of pages (0 for an empty list). Documented by production as a string; sent as a number, as production does.',
    }),
    total: z.int().min(0).meta({ description: 'Number of items over all pages.' }),
    ...({ [key]: z.array(item) } as Record<K, z.ZodArray<T>>),
  });

/** An ISO 8601 instant in UTC, as the sandbox writes them (2026-03-10T15:30:00.000Z). */
export const isoInstant = z.string().meta({ format: 'date-time', examples: ['2026-03-10T15:30:00.000Z'] });

/**
 * A JSON object body with exactly these fields: `notObject` is the message for anything else
 * (an array, a string, null), `unknownKeys` the one for fields it does not take (the first
 * unknown field is the error's `parameter`).
 */
export const jsonObject = <S extends z.ZodRawShape>(
  shape: S,
  messages: { notObject: string; unknownKeys: (keys: readonly string[]) => string },
) =>
  z.strictObject(shape, {
    // Every issue raised here, a refinement's included, whatever the map's type says.
    error: (issue: z.core.$ZodRawIssue) => {
      if (issue.code === 'unrecognized_keys') return messages.unknownKeys(issue.keys);
      if (issue.code === 'invalid_type') return messages.notObject;
      return undefined;
    },
  });

/** `"a", "b"`: keys as a message lists them. */
export const quotedList = (keys: readonly string[]): string => keys.map((k) => JSON.stringify(k)).join(', ');

/** A body that must be empty: nothing, or {}. */
export const noBody = (what: string) =>
  z
    .unknown()
    .superRefine((body, ctx) => {
      if (body !== undefined && (typeof body !== 'object' || body === null || Object.keys(body).length > 0)) {
        ctx.addIssue({ code: 'custom', message: `${what} takes no body; send an empty request` });
      }
    })
    .meta({ type: 'object', maxProperties: 0, description: 'No body, or an empty object.' });

/** For a refinement about which fields a body has: run it even when a field is wrong, but only on an object. */
export const onAnyObject = {
  when: (payload: { value: unknown }): boolean =>
    typeof payload.value === 'object' && payload.value !== null && !Array.isArray(payload.value),
};
