import { z } from 'zod';

import { AppError } from '../core/errors.js';
import { isLocalHttpHost } from '../core/loopback.js';
import type { OAuthClientRecord } from '../store/data.js';
import type { Client } from './clients.js';

/**
 * POST /sandbox/oauth-clients: production's registration form as JSON. Field names are
 * camelCase like the rest of the API; the answer carries the OAuth names client_id and
 * client_secret.
 */

// Schemes that are not an app's: a redirect there would run script, read files or leave the flow.
const NOT_APP_SCHEMES = new Set([
  'javascript',
  'data',
  'vbscript',
  'file',
  'blob',
  'about',
  'filesystem',
  'ftp',
  'ws',
  'wss',
  'mailto',
  'tel',
  'sms',
  'urn',
]);
const MAX_URI_LENGTH = 2048;
/** RFC 6749 appendix A: client ids and secrets are visible ASCII characters (spaces inside are allowed). */
const VSCHAR_TEXT = /^[\x21-\x7E]([\x20-\x7E]*[\x21-\x7E])?$/;

export const REGISTRATION_FIELDS = [
  'name',
  'companyName',
  'email',
  'phone',
  'applicationName',
  'applicationWebsite',
  'description',
  'redirectUri',
  'signOutUri',
] as const;

/** Why `value` is not an acceptable redirect or sign-out URI, or null. Production: https, and a custom scheme for native apps' redirect URIs. */
export function uriProblem(field: string, value: string, allowCustomScheme: boolean): string | null {
  const rule = allowCustomScheme
    ? `${field} must use https, a custom scheme for a native app (myapp://callback), or http on localhost/127.0.0.1/[::1]`
    : `${field} must use https, or http on localhost/127.0.0.1/[::1]`;
  if (value.length > MAX_URI_LENGTH) return `${field} must be at most ${MAX_URI_LENGTH} characters`;
  if (!URL.canParse(value)) return `${rule}; ${JSON.stringify(value)} is not an absolute URI`;
  const url = new URL(value);
  const scheme = url.protocol.slice(0, -1);
  if (url.hash || value.includes('#')) return `${field} must not contain a #fragment (RFC 6749 section 3.1.2)`;
  if (url.username || url.password) return `${field} must not contain a user name or password`;
  if (scheme === 'https') return null;
  // SANDBOX: plain http is also accepted for loopback hosts, as RFC 8252 section 7.3 allows for native apps, so partners can test locally.
  if (scheme === 'http')
    return isLocalHttpHost(url.hostname) ? null : `${rule}; plain http is accepted only for loopback hosts`;
  if (!allowCustomScheme) return `${rule}; got the scheme ${JSON.stringify(scheme)}`;
  if (NOT_APP_SCHEMES.has(scheme)) return `${rule}; ${JSON.stringify(scheme)} is not an app's custom scheme`;
  return null;
}

const required = (field: string, kind: string) => (issue: { input: unknown }) =>
  issue.input === undefined ? `${field} is required` : `${field} must be ${kind}`;

const text = (field: string, max: number) =>
  z
    .string({ error: required(field, 'a string') })
    .trim()
    .min(1, `${field} must not be empty`)
    .max(max, `${field} must be at most ${max} characters`);

const uri = (field: string, allowCustomScheme: boolean) =>
  z.string({ error: required(field, 'a string URI') }).superRefine((value, ctx) => {
    const problem = uriProblem(field, value, allowCustomScheme);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

const credential = (field: string, min: number) =>
  z
    .string({ error: required(field, 'a string') })
    .min(min, `${field} must have at least ${min} characters`)
    .max(128, `${field} must be at most 128 characters`)
    .regex(
      VSCHAR_TEXT,
      `${field} must be visible ASCII characters (spaces allowed inside), as RFC 6749 appendix A defines client credentials`,
    );

export const registrationSchema = z.strictObject({
  name: text('name', 200),
  companyName: text('companyName', 200),
  email: z
    .email({ error: required('email', 'an e-mail address such as dev@example.com') })
    .max(254, 'email must be at most 254 characters'),
  phone: z
    .string({ error: required('phone', 'a string') })
    .trim()
    .regex(
      /^\+?[0-9 ().\/-]{7,30}$/,
      'phone must be a phone number of digits, spaces and + ( ) . / - such as +1 555 0100 200',
    )
    .refine((p) => p.replace(/\D/g, '').length >= 7, 'phone must have at least 7 digits'),
  applicationName: text('applicationName', 100),
  applicationWebsite: z
    .string({ error: required('applicationWebsite', 'a string URL') })
    .refine(
      (v) => URL.canParse(v) && ['http:', 'https:'].includes(new URL(v).protocol),
      'applicationWebsite must be an absolute http or https URL such as https://example.com',
    ),
  description: text('description', 1000),
  redirectUri: uri('redirectUri', true),
  signOutUri: uri('signOutUri', false),
  // SANDBOX: a partner may choose its own credentials, e.g. to keep a CI configuration fixed.
  clientId: credential('clientId', 1).optional(),
  clientSecret: credential('clientSecret', 8).optional(),
  // SANDBOX: production always POSTs the token response to the redirect URI; a partner may turn that off per client.
  postTokenToRedirectUri: z.boolean({ error: 'postTokenToRedirectUri must be true or false' }).optional(),
});

export type Registration = z.infer<typeof registrationSchema>;

/** Validates a registration body; a 400 names the first failing field, and `problems` lists them all. */
export function parseRegistration(body: unknown): Registration {
  if (body === undefined) {
    throw new AppError(
      415,
      'unsupported_media_type',
      'The request body must be JSON with Content-Type: application/json; see docs/oauth.md for the registration fields',
    );
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError(
      400,
      'invalid_parameter',
      'The request body must be a JSON object with the registration fields',
      { details: { parameter: 'body' } },
    );
  }
  const parsed = registrationSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.map((k) => JSON.stringify(k)).join(', ');
      return {
        parameter: issue.keys[0] ?? 'body',
        message: `Unknown field ${keys}; a registration takes ${REGISTRATION_FIELDS.join(', ')} (and optionally clientId, clientSecret, postTokenToRedirectUri)`,
      };
    }
    return { parameter: String(issue.path[0] ?? 'body'), message: issue.message };
  });
  const first = problems[0] ?? { parameter: 'body', message: 'The registration is not valid' };
  throw new AppError(400, 'invalid_parameter', first.message, { details: { parameter: first.parameter, problems } });
}

export function clientFromRegistration(
  registration: Registration,
  input: { clientId: string; clientSecret: string; accountId: string; now: Date },
): OAuthClientRecord {
  return {
    clientId: input.clientId,
    clientSecret: input.clientSecret,
    applicationName: registration.applicationName,
    redirectUris: [registration.redirectUri],
    signOutUris: [registration.signOutUri],
    registration: {
      name: registration.name,
      companyName: registration.companyName,
      email: registration.email,
      phone: registration.phone,
      applicationWebsite: registration.applicationWebsite,
      description: registration.description,
      accountId: input.accountId,
    },
    postTokenToRedirectUri: registration.postTokenToRedirectUri ?? true,
    createdAt: input.now.toISOString(),
  };
}

/** The answer to a registration: the credentials and what was registered. */
export function presentRegisteredClient(client: Client): Record<string, unknown> {
  const { registration } = client;
  return {
    client_id: client.clientId,
    client_secret: client.clientSecret,
    name: registration?.name,
    companyName: registration?.companyName,
    email: registration?.email,
    phone: registration?.phone,
    applicationName: client.applicationName,
    applicationWebsite: registration?.applicationWebsite,
    description: registration?.description,
    redirectUri: client.redirectUris[0],
    signOutUri: client.signOutUris[0],
    postTokenToRedirectUri: client.postTokenToRedirectUri,
    createdAt: client.createdAt,
  };
}
