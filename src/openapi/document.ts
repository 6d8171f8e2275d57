import { z } from 'zod';

import { present } from '../core/errors.js';
import { DEMO } from '../http/demo-examples.js';
import type { Operation } from '../http/operation.js';
import { DESCRIPTION, PATH_PARAMETERS, TAGS } from './document-texts.js';
import { ALL_OPERATIONS, NAMED_SCHEMAS } from './registry.js';

type Json = Record<string, unknown>;

/** JSON Schema of a zod schema in OpenAPI 3.1 form (JSON Schema 2020-12): no $schema/$id, no ±2^53 integer bounds. */
function clean(schema: Json): Json {
  const copy: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$schema' || key === '$id') continue;
    if (
      (key === 'minimum' && value === Number.MIN_SAFE_INTEGER) ||
      (key === 'maximum' && value === Number.MAX_SAFE_INTEGER)
    )
      continue;
    copy[key] = Array.isArray(value)
      ? value.map((v: unknown) => (isObject(v) ? clean(v) : v))
      : isObject(value)
        ? clean(value)
        : value;
  }
  return copy;
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const pascal = (id: string): string => id.charAt(0).toUpperCase() + id.slice(1);

/**
 * Components of the schemas of `entries` converted in one `io` mode: shared names from
 * NAMED_SCHEMAS, the others named after their operation. Returns the name of each entry.
 */
function convert(
  io: 'input' | 'output',
  entries: [z.ZodType, string][],
): { names: Map<z.ZodType, string>; schemas: Record<string, Json> } {
  const registry = z.registry<{ id: string }>();
  const names = new Map<z.ZodType, string>();
  if (io === 'output') {
    for (const [name, schema] of Object.entries(NAMED_SCHEMAS)) {
      registry.add(schema, { id: name });
      names.set(schema, name);
    }
  }
  for (const [schema, name] of entries) {
    if (names.has(schema)) continue;
    registry.add(schema, { id: name });
    names.set(schema, name);
  }
  const result = z.toJSONSchema(registry, {
    io,
    uri: (id) => `#/components/schemas/${id}`,
    unrepresentable: 'any',
  }) as { schemas: Record<string, Json> };
  const schemas: Record<string, Json> = {};
  for (const [name, schema] of Object.entries(result.schemas)) schemas[name] = clean(schema);
  return { names, schemas };
}

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

/** The query parameters of an operation, from its schema (input mode: the text the client sends). */
function queryParameters(op: Operation): Json[] {
  if (!op.query) return [];
  const schema = clean(z.toJSONSchema(op.query, { io: 'input', unrepresentable: 'any' }));
  const required = new Set((schema['required'] as string[] | undefined) ?? []);
  const properties = (schema['properties'] ?? {}) as Record<string, Json>;
  return Object.entries(properties).map(([name, property]) => {
    const { description, examples, ...rest } = property;
    const given = op.queryExample?.[name];
    const example =
      given !== undefined && (rest['type'] === 'integer' || rest['type'] === 'number')
        ? Number(given)
        : (given ?? (Array.isArray(examples) ? (examples[0] as unknown) : undefined));
    return {
      name,
      in: 'query',
      required: required.has(name),
      ...(description === undefined ? {} : { description }),
      schema: rest,
      ...(example === undefined ? {} : { example }),
    };
  });
}

function pathParameters(path: string): Json[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name = '']) => {
    const known = PATH_PARAMETERS[name];
    if (!known) throw new Error(`path parameter {${name}} of ${path} has no entry in PATH_PARAMETERS`);
    return {
      name,
      in: 'path',
      required: true,
      description: known.description,
      schema: { type: 'string' },
      example: known.example,
    };
  });
}

const header = (description: string): Json => ({ description, schema: { type: 'string' } });

const headerParameters = (op: Operation): Json[] =>
  Object.entries(op.requestHeaders ?? {}).map(([name, description]) => ({
    name,
    in: 'header',
    required: true,
    description,
    schema: { type: 'string' },
  }));

const errorContent = (op: Operation): Json => ({
  'application/json': {
    schema: op.path.startsWith('/oauth2/')
      ? ref('OAuthError')
      : // The MCP transport answers its own refusals as JSON-RPC errors.
        op.path === '/mcp'
        ? { oneOf: [ref('Error'), ref('McpError')] }
        : ref('Error'),
  },
});

/** What every operation of its kind can answer besides its own responses: authentication, bodies, encoding, 405s, faults. */
function commonErrors(op: Operation): Record<string, { description: string; headers?: Json }> {
  const badRequest = { description: 'invalid_percent_encoding: the path or the query is not valid percent-encoding.' };
  const errors: Record<string, { description: string; headers?: Json }> = { 400: badRequest };
  const readsBody = op.method !== 'get';
  // Every route bounds a body, one a GET does not read included.
  errors['413'] = {
    description: readsBody
      ? 'payload_too_large: the body is over 100 kB (or a form has over 1000 fields).'
      : 'payload_too_large: a body is sent, and it is over 100 kB.',
  };
  if (readsBody) {
    badRequest.description +=
      ' invalid_json: the body does not parse, or nests more than 64 levels. invalid_body / request_aborted: the body was cut short.';
    errors['415'] = {
      description: op.body?.form
        ? "unsupported_media_type: the body's charset or Content-Encoding cannot be read."
        : 'unsupported_media_type: the body is not JSON (send Content-Type: application/json), or a required body is missing.',
    };
  }
  if (op.guard === 'account' || op.guard === 'admin') {
    const when = op.guard === 'admin' ? ' (only when ADMIN_TOKEN is set)' : '';
    errors['401'] = {
      description: `missing_credentials${when}: no usable Authorization header; the message says what to send.`,
      headers: { 'WWW-Authenticate': header('Bearer realm="water-sandbox"') },
    };
    const controls =
      op.guard === 'account' && !op.path.startsWith('/v1/')
        ? " insufficient_scope: an access token of another account's application that a user allowed, which reaches /v1 only (SANDBOX: the controls are the account owner's)."
        : '';
    errors['403'] = {
      description: `invalid_credentials, token_expired or token_revoked${when}: the key or token is not valid.${controls}`,
      headers: {
        'WWW-Authenticate': header('Bearer realm="water-sandbox", error="invalid_token", error_description="..."'),
      },
    };
  }
  if (op.guard === 'session') {
    errors['401'] = {
      description: 'signed_out: this browser is not signed in to the dashboard (any more); sign in at / first.',
    };
    if (readsBody)
      errors['403'] = {
        description:
          "csrf_refused: the X-CSRF-Token header is missing or is not the signed-in page's: the change comes from the presenter's page only.",
      };
  }
  if (op.path.startsWith('/v1/')) {
    errors['429'] = {
      description: 'rate_limited: over the rate limit set with POST /sandbox/faults (SANDBOX).',
      headers: { 'Retry-After': header('Seconds to wait.') },
    };
  }
  // Every change of an account is checked against its byte budget; a change that frees space always passes.
  if ((op.guard === 'account' && readsBody) || op.guard === 'client') {
    errors['409'] = {
      description:
        "limit_reached (SANDBOX): the change would take the account's stored data past ACCOUNT_STORAGE_LIMIT (a hosted sandbox: 1 MiB); the message names its largest parts and how to delete them.",
    };
  }
  return errors;
}

function responsesOf(op: Operation, names: Map<z.ZodType, string>): Json {
  const responses: Json = {};
  for (const [status, spec] of Object.entries(op.responses)) {
    const headers: Json = Object.fromEntries(
      Object.entries(spec.headers ?? {}).map(([name, description]) => [name, header(description)]),
    );
    if (op.secrets !== undefined && headers['Cache-Control'] === undefined)
      headers['Cache-Control'] = { ...header(`no-store: the answer carries ${op.secrets}`), required: true };
    const content = spec.schema
      ? {
          'application/json': {
            schema: ref(present(names.get(spec.schema), 'the name of a response schema')),
            ...(spec.example === undefined ? {} : { example: spec.example }),
          },
        }
      : spec.html
        ? { 'text/html': { schema: { type: 'string' } } }
        : spec.eventStream
          ? { 'text/event-stream': { schema: { type: 'string' } } }
          : spec.plainText
            ? { 'text/plain': { schema: { type: 'string' } } }
            : undefined;
    responses[status] = {
      description: spec.description,
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      ...(content ? { content } : {}),
    };
  }
  const html = op.responses[200]?.html === true || ['/login', '/login/consent', '/logout'].includes(op.path);
  const own = op.errors ?? {};
  const common = commonErrors(op);
  for (const status of [...new Set([...Object.keys(common), ...Object.keys(own)])].sort()) {
    const description = [own[Number(status)], common[status]?.description].filter((d) => d !== undefined).join(' ');
    const ownIsHtml = html && own[Number(status)] !== undefined;
    const extraHeaders: Json = {
      ...(common[status]?.headers ?? {}),
      ...(status === '429' ? { 'Retry-After': header('Seconds to wait.') } : {}),
      ...(op.path.startsWith('/oauth2/') && status === '401'
        ? { 'WWW-Authenticate': header('Basic realm="oauth2"') }
        : {}),
    };
    responses[status] = {
      description,
      ...(Object.keys(extraHeaders).length > 0 ? { headers: extraHeaders } : {}),
      content: { ...(ownIsHtml ? { 'text/html': { schema: { type: 'string' } } } : {}), ...errorContent(op) },
    };
  }
  if (op.passthrough !== undefined)
    responses['default'] = { description: op.passthrough, content: { '*/*': { schema: {} } } };
  if (op.path.startsWith('/v1/')) {
    const fault = {
      headers: { 'X-Sandbox-Fault': { ...header('injected'), required: true } },
      content: { 'application/json': { schema: {} } },
    };
    responses['4XX'] = {
      description: 'SANDBOX: an injected fault (POST /sandbox/faults): the status and JSON body the partner chose.',
      ...fault,
    };
    responses['5XX'] = {
      description: 'SANDBOX: an injected fault (POST /sandbox/faults). Production answers 5xx for a server fault.',
      ...fault,
    };
    // SANDBOX: production ignores unknown query parameters in silence; the sandbox ignores them too and names them.
    const warning = header(
      'SANDBOX: sent when the query has parameters this operation does not know, which are ignored as production ignores them; names them, with a near match where there is one: ignored, as production does: unknown query parameter "pagesize" (did you mean "perPage"?)',
    );
    for (const [status, response] of Object.entries(responses) as [string, Json][]) {
      if (status !== '4XX' && status !== '5XX')
        response['headers'] = { ...(response['headers'] as Json | undefined), 'X-Sandbox-Warning': warning };
    }
  }
  return responses;
}

function securityOf(op: Operation): Json[] {
  switch (op.guard) {
    case 'account':
      return [{ apiKey: [] }, { oauth2: [] }];
    case 'admin':
      return [{ adminToken: [] }, {}];
    case 'client':
      return [{ clientBasic: [] }, {}];
    case 'session':
      return [{ dashboardSession: [] }];
    case 'none':
      return [];
  }
}

function requestBodyOf(op: Operation, names: Map<z.ZodType, string>): Json | undefined {
  const body = op.body;
  if (!body) return undefined;
  const mediaType = body.form ? 'application/x-www-form-urlencoded' : 'application/json';
  return {
    required: body.required,
    content: {
      [mediaType]: {
        schema: ref(present(names.get(body.schema), 'the name of a request schema')),
        example: body.example,
      },
    },
  };
}

function describe(op: Operation): string | undefined {
  const parts = [op.description, op.sandbox === undefined ? undefined : `**SANDBOX:** ${op.sandbox}`].filter(
    (p) => p !== undefined,
  );
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}

export interface DocumentOptions {
  /** The sandbox's PUBLIC_URL: the server of the document and the base of the OAuth URLs. */
  publicUrl: string;
  version: string;
  operations?: readonly Operation[];
}

/** The OpenAPI 3.1 document of the sandbox. */
export function buildOpenApiDocument(options: DocumentOptions): Json {
  const operations = options.operations ?? ALL_OPERATIONS;
  const base = options.publicUrl.replace(/\/+$/, '');
  const input = convert(
    'input',
    operations.flatMap((op) =>
      op.body ? [[op.body.schema, `${pascal(op.operationId)}Request`] as [z.ZodType, string]] : [],
    ),
  );
  const output = convert(
    'output',
    operations.flatMap((op) =>
      Object.entries(op.responses).flatMap(([status, spec]) =>
        spec.schema
          ? [[spec.schema, `${pascal(op.operationId)}${status === '200' ? '' : status}Response`] as [z.ZodType, string]]
          : [],
      ),
    ),
  );
  for (const name of Object.keys(input.schemas)) {
    if (output.schemas[name] !== undefined) throw new Error(`schema ${name} is both a request and a response schema`);
  }

  const paths: Record<string, Json> = {};
  for (const op of operations) {
    const item = {
      operationId: op.operationId,
      summary: op.summary,
      ...(describe(op) === undefined ? {} : { description: describe(op) }),
      tags: [...op.tags],
      security: securityOf(op),
      parameters: [...pathParameters(op.path), ...queryParameters(op), ...headerParameters(op)],
      ...(op.body ? { requestBody: requestBodyOf(op, input.names) } : {}),
      responses: responsesOf(op, output.names),
    };
    const add = (path: string, operation: Json): void => {
      paths[path] ??= {};
      if (paths[path][op.method] !== undefined) throw new Error(`${op.method.toUpperCase()} ${path} is defined twice`);
      paths[path][op.method] = operation;
    };
    add(op.path, item);
    if (op.trailingSlash) {
      add(`${op.path}/`, {
        ...item,
        operationId: `${op.operationId}TrailingSlash`,
        summary: `${op.summary} (with a slash at the end)`,
      });
    }
  }

  return {
    openapi: '3.1.0',
    info: { title: 'Water monitoring API sandbox', version: options.version, description: DESCRIPTION },
    servers: [{ url: base, description: 'This sandbox (PUBLIC_URL)' }],
    tags: TAGS,
    paths,
    components: {
      schemas: { ...output.schemas, ...input.schemas },
      responses: {
        NotFound: {
          description:
            'not_found: no such route (also invalid_percent_encoding, and the authentication and body errors met on the way; in RFC 6749 form on /oauth2/token).',
          content: { 'application/json': { schema: { oneOf: [ref('Error'), ref('OAuthError')] } } },
        },
        MethodNotAllowed: {
          description: 'method_not_allowed: the path does not serve this method; Allow lists the ones it does.',
          headers: { Allow: { ...header('GET, POST, ...'), required: true } },
          content: { 'application/json': { schema: { oneOf: [ref('Error'), ref('OAuthError')] } } },
        },
      },
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: `The account's API key, or an OAuth access token. Demo: ${DEMO.apiKey}`,
        },
        oauth2: {
          type: 'oauth2',
          description: `Authorization code with the sandbox's sign-in form (demo@example.com / demo-password; client ${DEMO.clientId} / ${DEMO.clientSecret}). The access token goes in Authorization: Bearer.`,
          flows: {
            authorizationCode: {
              authorizationUrl: `${base}/login`,
              tokenUrl: `${base}/oauth2/token`,
              refreshUrl: `${base}/oauth2/token`,
              scopes: {},
            },
          },
        },
        adminToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'ADMIN_TOKEN, when the sandbox is started with one; otherwise these calls are open.',
        },
        dashboardSession: {
          type: 'apiKey',
          in: 'cookie',
          name: 'water_sandbox_session',
          description:
            'The login session of a browser signed in to the dashboard (GET /, demo@example.com / demo-password); behind https the cookie is named __Host-water_sandbox_session. A change also sends the X-CSRF-Token the signed-in page carries.',
        },
        clientBasic: {
          type: 'http',
          scheme: 'basic',
          description:
            'The OAuth client: Basic base64(client_id:client_secret); or client_id and client_secret in the form.',
        },
      },
    },
  };
}
