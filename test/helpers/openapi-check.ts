import type { IncomingMessage, ServerResponse } from 'node:http';

import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Express } from 'express';

import { buildOpenApiDocument } from '../../src/openapi/index.js';

/**
 * Every response a test gets from the app is checked against /openapi.json: its route, its
 * status, its headers and (for JSON) its body, with the document's strict schemas (no key
 * that is not documented). Problems are collected and fail the test in an afterEach hook
 * (test/helpers/openapi-check-setup.ts), naming the request and what does not match.
 */

type Json = Record<string, unknown>;

interface Operation {
  responses: Record<string, Json>;
}

/** Routes that are not part of the API and not in the document: the dashboard pages and the files of /docs. */
const UNDOCUMENTED = [
  /^\/$/,
  /^\/dashboard\/(sign-(in|out)|token|events|demo-receiver|assets\/.*)$/i,
  /^\/docs\/(init\.js|assets\/[^/]+)$/i,
];

interface Checker {
  document: Json;
  ajv: Ajv2020;
  validators: Map<string, ValidateFunction>;
  paths: { template: string; pattern: RegExp; item: Record<string, Operation> }[];
}

let checker: Checker | null = null;

/** The document and its validators, made on first use. */
function state(): Checker {
  if (checker) return checker;
  const document = buildOpenApiDocument({ publicUrl: 'http://localhost:8080', version: 'check' });
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'doc', components: document['components'] });
  const paths = Object.entries(document['paths'] as Record<string, Record<string, Operation>>).map(
    ([template, item]) => ({
      template,
      // Express matches paths without regard to case; a template parameter is one non-empty segment.
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}$`, 'i'),
      item,
    }),
  );
  checker = { document, ajv, validators: new Map(), paths };
  return checker;
}

/** Validates against a schema of the document; $refs resolve into its components. */
function validatorOf(schema: Json): ValidateFunction {
  const { ajv, validators } = state();
  const key = JSON.stringify(schema);
  let validate = validators.get(key);
  if (!validate) {
    const rewritten = JSON.parse(key.replace(/"#\/components\//g, '"doc#/components/')) as Json;
    validate = ajv.compile(rewritten);
    validators.set(key, validate);
  }
  return validate;
}

export const violations: string[] = [];

interface Seen {
  method: string;
  url: string;
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

function responseFor(responses: Record<string, Json>, status: number, injected: boolean): Json | undefined {
  const range = `${String(status).charAt(0)}XX`;
  if (injected) return responses[range];
  return responses[String(status)] ?? responses['default'];
}

function checkBody(seen: Seen, response: Json, where: string): void {
  const contentType = String(seen.headers['content-type'] ?? '');
  const content = response['content'] as Record<string, Json> | undefined;
  if (seen.method === 'HEAD' || seen.status === 304 || content?.['*/*'] !== undefined) return;
  if (contentType.startsWith('application/json')) {
    const media = content?.['application/json'];
    if (!media)
      return void violations.push(
        `${where}: JSON body, but the document gives this response no application/json content`,
      );
    let body: unknown;
    try {
      body = JSON.parse(seen.body);
    } catch {
      return void violations.push(`${where}: the body is not JSON: ${seen.body.slice(0, 100)}`);
    }
    const validate = validatorOf(media['schema'] as Json);
    if (!validate(body)) {
      violations.push(
        `${where}: the body does not match the document: ${state().ajv.errorsText(validate.errors)}; body ${JSON.stringify(body).slice(0, 300)}`,
      );
    }
    return;
  }
  if (
    contentType.startsWith('text/html') &&
    content &&
    !content['text/html'] &&
    seen.status !== 302 &&
    seen.status !== 303
  ) {
    violations.push(`${where}: an HTML body, but the document gives this response no text/html content`);
  }
}

function checkHeaders(seen: Seen, response: Json, where: string): void {
  const headers = (response['headers'] ?? {}) as Record<string, Json>;
  for (const [name, spec] of Object.entries(headers)) {
    const always =
      spec['required'] === true ||
      ['www-authenticate', 'retry-after', 'allow', 'location'].includes(name.toLowerCase());
    if (always && seen.headers[name.toLowerCase()] === undefined)
      violations.push(`${where}: the document says it has a ${name} header; it has none`);
  }
  // The sandbox's own signals must be documented where they are sent.
  const documented = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
  for (const name of ['x-sandbox-warning']) {
    if (seen.headers[name] !== undefined && !documented.has(name))
      violations.push(`${where}: sent ${name}, which the document does not give this response`);
  }
}

/** Checks one exchange against the document; problems go to `violations`. */
export function checkExchange(seen: Seen): void {
  const path = seen.url.split('?')[0]!;
  const where = `${seen.method} ${seen.url.slice(0, 200)} → ${seen.status}`;
  if (UNDOCUMENTED.some((pattern) => pattern.test(path))) return;
  const injected = seen.headers['x-sandbox-fault'] !== undefined;
  const { document, paths } = state();
  const match = paths.find((p) => p.pattern.test(path));
  const method = seen.method === 'HEAD' ? 'get' : seen.method.toLowerCase();
  const errors = document['components'] as { responses: Record<string, Json> };
  if (!match || !match.item[method]) {
    if (seen.status < 400)
      return void violations.push(`${where}: answered ${seen.status} on a route the document does not list`);
    if (injected) return;
    if (match && seen.status === 405) {
      const allow = Object.keys(match.item).map((m) => m.toUpperCase());
      const sent = String(seen.headers['allow'] ?? '').split(', ');
      const expected = [...allow, ...(allow.includes('GET') ? ['HEAD'] : [])];
      if (sent.sort().join() !== expected.sort().join())
        violations.push(`${where}: Allow is ${sent.join(', ')}; the document lists ${expected.join(', ')}`);
      checkBody(seen, errors.responses['MethodNotAllowed']!, where);
      return;
    }
    // Errors met before routing (encoding, authentication, bodies) or the 404 of an unknown path.
    if (![400, 401, 403, 404, 413, 415, 429].includes(seen.status))
      return void violations.push(`${where}: status not documented for a path the document does not list`);
    checkBody(seen, errors.responses['NotFound']!, where);
    return;
  }
  const response = responseFor(match.item[method].responses, seen.status, injected);
  if (!response)
    return void violations.push(
      `${where}: status ${seen.status} is not documented for ${method.toUpperCase()} ${match.template}${injected ? ' (injected fault)' : ''}`,
    );
  checkHeaders(seen, response, where);
  checkBody(seen, response, where);
}

/** Records what `res` sends for `req` and checks it when the response ends. */
export function observe(req: IncomingMessage, res: ServerResponse): void {
  // Express rewrites req.url inside mounted routers: keep the URL as it came.
  const url = req.url ?? '/';
  const chunks: Buffer[] = [];
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  const keep = (chunk: unknown, encoding?: unknown): void => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    chunks.push(
      Buffer.isBuffer(chunk)
        ? chunk
        : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'),
    );
  };
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    keep(chunk, rest[0]);
    return write(chunk, ...rest);
  }) as typeof res.write;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    keep(chunk, rest[0]);
    try {
      checkExchange({
        method: req.method ?? 'GET',
        url,
        status: res.statusCode,
        headers: res.getHeaders(),
        body: Buffer.concat(chunks).toString('utf8'),
      });
    } catch (error) {
      violations.push(`checking ${String(req.method)} ${url} failed: ${String(error)}`);
    }
    return end(chunk, ...rest);
  }) as typeof res.end;
}

/** The app, with every response checked against the document (a Proxy: everything else is the app's). */
export function checkedAgainstDocument(app: Express): Express {
  return new Proxy(app, {
    apply(target, thisArg, args: [IncomingMessage, ServerResponse]) {
      observe(args[0], args[1]);
      return Reflect.apply(target, thisArg, args) as unknown;
    },
  });
}

/** The violations so far, cleared. */
export function takeViolations(): string[] {
  return violations.splice(0);
}
