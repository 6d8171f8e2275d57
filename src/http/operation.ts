import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { z } from 'zod';
import type * as zc from 'zod/v4/core';

import { AppError, invalidParameter } from '../core/errors.js';
import { noteQuery, queryOf } from './request-context.js';
import { setRouteLabel } from './route-label.js';
import { noteTableRoutes, type TableRoute } from './route-table.js';
import { allowOnly } from './routing.js';
import { unknownQueryWarning, WARNING_HEADER } from './unknown-query.js';

/**
 * The route registry. Every route of /v1, /sandbox and the authorization host is an
 * Operation: plain data (method, public path, summary, who may call, the zod schemas of its
 * query and body, its responses) that lives in its feature's operations.ts. The same object
 * mounts the route (operationRouter below, which also answers 405 for the path's other
 * methods) and describes it in /openapi.json (src/openapi), so what is validated is what is
 * documented.
 *
 * Adding a route: define it in the feature's operations.ts with the feature's `operationsTagged`, add it
 * to the feature's list of operations (exported through its index.ts, and listed once in
 * src/openapi/registry.ts), and bind its handler with `api.handle(op, handler)` in routes.ts.
 * A test walks the app's router and fails when a route is mounted without being documented.
 */

export type HttpMethod = 'get' | 'post' | 'put' | 'delete';

/**
 * Who may call: `account`: the account's API key or an access token of one of its users
 * (Bearer); `admin`: ADMIN_TOKEN when it is set, anyone otherwise; `client`: an OAuth client
 * (HTTP Basic or client_id and client_secret in the form); `session`: a browser signed in to the
 * dashboard (its session cookie; a change also sends the page's X-CSRF-Token); `none`: anyone.
 */
export type Guard = 'account' | 'admin' | 'client' | 'session' | 'none';

export interface ResponseSpec {
  description: string;
  /** The JSON body. Absent for HTML pages (`html`), text (`plainText`, `eventStream`) and redirects. */
  schema?: z.ZodType;
  /** An HTML page. */
  html?: true;
  /** A stream of server-sent events (text/event-stream). */
  eventStream?: true;
  /** Plain text (text/plain), e.g. the Prometheus exposition format. */
  plainText?: true;
  /** Response headers that are always sent, by name: their description. */
  headers?: Readonly<Record<string, string>>;
  /** A body that the demo data gives; checked against `schema` by the tests. */
  example?: unknown;
}

export interface BodySpec<B extends z.ZodType = z.ZodType> {
  schema: B;
  /** `form`: application/x-www-form-urlencoded (the authorization host); JSON otherwise. */
  form?: true;
  /** A request without a body is a 415 naming `example`; otherwise the schema sees `undefined`. */
  required: boolean;
  /** A body that works on the demo data; shown in messages and in the document. */
  example: unknown;
}

/** What an operation says beyond its name, its route and its place in the document (see Operation). */
export interface OperationDetails<
  Q extends z.ZodType | undefined = z.ZodType | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
> {
  summary: string;
  description?: string;
  /** The query: a zod object whose keys are the parameters; each value is the text sent. */
  query?: Q;
  /** Request headers it requires beyond the credentials, by name: what to send. */
  requestHeaders?: Readonly<Record<string, string>>;
  body?: B extends z.ZodType ? BodySpec<B> : undefined;
  /** Success responses, by status. */
  responses: Readonly<Record<number, ResponseSpec>>;
  /** The operation passes on another server's answer, whatever its status and type: what it is. */
  passthrough?: string;
  /**
   * Errors of this operation beyond the ones every operation of its kind has (authentication,
   * bodies, percent-encoding, the 405 of other methods), by status: when they happen.
   */
  errors?: Readonly<Record<number, string>>;
  /** SANDBOX: how this operation deliberately differs from production; shown in the document. */
  sandbox?: string;
  /** The path with a slash at its end is served too (a production client sends it, or people type it). */
  trailingSlash?: true;
  /** Example query values that work on the demo data. */
  queryExample?: Readonly<Record<string, string>>;
  /**
   * The secrets its answer can carry (an API key, a password, a client secret, tokens): the
   * answer, errors included, is sent with `Cache-Control: no-store`, so no cache keeps them.
   */
  secrets?: string;
}

export interface Operation<
  P extends string = string,
  Q extends z.ZodType | undefined = z.ZodType | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
> extends OperationDetails<Q, B> {
  /** Unique, camelCase: the name client generators give the call. */
  operationId: string;
  method: HttpMethod;
  /** The public path, OpenAPI style: /v1/locations/{locationId}. */
  path: P;
  tags: readonly string[];
  guard: Guard;
}

/** Defines an operation, keeping the literal path so that handlers get typed path parameters. */
export const operation = <
  const P extends string,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(
  spec: Operation<P, Q, B>,
): Operation<P, Q, B> => spec;

/** A route as the docs write it: 'POST /sandbox/accounts'. */
export type Route = `${Uppercase<HttpMethod>} /${string}`;

/** The path of a route: '/sandbox/accounts' for 'POST /sandbox/accounts'. */
export type PathOf<R extends Route> = R extends `${string} ${infer P}` ? P : never;

/**
 * The `operation` of one section of the document: each operation it defines is written with its
 * name (the operationId) and its route ('GET /v1/locations/{locationId}'), is listed under `tag`,
 * and is called by `guard` unless it names another.
 */
export const operationsTagged =
  (tag: string, guard: Guard) =>
  <const R extends Route, Q extends z.ZodType | undefined = undefined, B extends z.ZodType | undefined = undefined>(
    operationId: string,
    route: R,
    details: OperationDetails<Q, B> & { guard?: Guard },
  ): Operation<PathOf<R>, Q, B> => {
    const space = route.indexOf(' ');
    const method = route.slice(0, space).toLowerCase() as HttpMethod;
    const path = route.slice(space + 1) as PathOf<R>;
    return { operationId, guard, ...details, method, path, tags: [tag] };
  };

/** `{ locationId: string }` for '/v1/locations/{locationId}'. */
export type PathParams<P extends string> = P extends `${string}{${infer Name}}${infer Rest}`
  ? { [K in Name]: string } & PathParams<Rest>
  : unknown;

/** What a handler gets: the path parameters, and the query and body validated by the operation's schemas when it asks for them. */
export interface Input<P extends string, Q, B> {
  params: PathParams<P>;
  /** Validates the query with the operation's schema: a 400 naming the parameter and the rule, or the parsed query. */
  query: () => Q extends z.ZodType ? z.output<Q> : never;
  /** Validates the body with the operation's schema (a 415 when a required body is missing). */
  body: () => B extends z.ZodType ? z.output<B> : never;
}

export type Handler<P extends string, Q, B> = (input: Input<P, Q, B>, req: Request, res: Response) => unknown;

/** The keys of the object a schema validates (through pipes, transforms and wrappers), in their order; [] for others. */
function keyOrder(schema: z.ZodType): string[] {
  const def = (
    schema as unknown as {
      def: { type: string; in?: z.ZodType; innerType?: z.ZodType; shape?: Record<string, unknown> };
    }
  ).def;
  if (def.type === 'object' && def.shape) return Object.keys(def.shape);
  const inner = def.in ?? def.innerType;
  return inner ? keyOrder(inner) : [];
}

/**
 * Parameter name (dotted path) and message of a failed validation: an unknown key first, else
 * the issue of the earliest field in the schema's order (so a query or body is checked in the
 * order its parameters are listed, whatever order zod's checks ran in).
 */
export function firstProblem(
  error: z.ZodError,
  where: 'body' | 'query',
  order: readonly string[] = [],
): { parameter: string; message: string } {
  const rank = (issue: zc.$ZodIssue): number => {
    if (issue.code === 'unrecognized_keys') return -1;
    const index = order.indexOf(String(issue.path[0]));
    return index < 0 ? order.length : index;
  };
  const issue = [...error.issues].sort((a, b) => rank(a) - rank(b))[0];
  if (!issue) return { parameter: where, message: `The ${where} is not valid` };
  const parameter =
    issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined
      ? issue.keys[0]
      : issue.path.map(String).join('.') || where;
  return { parameter, message: issue.message };
}

/** Runs a schema on request input, for routes that answer a problem their own way (HTML pages, RFC 6749 bodies). */
export function safeInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: 'body' | 'query',
): { ok: true; data: z.output<S> } | { ok: false; parameter: string; message: string } {
  const result = schema.safeParse(value);
  return result.success
    ? { ok: true, data: result.data }
    : { ok: false, ...firstProblem(result.error, where, keyOrder(schema)) };
}

/** Runs a schema on request input; a failure is a 400 invalid_parameter naming the parameter (or what `fail` makes of it). */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: 'body' | 'query',
  fail: (problem: { parameter: string; message: string }) => Error = (p) => invalidParameter(p.parameter, p.message),
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw fail(firstProblem(result.error, where, keyOrder(schema)));
}

/** The message of a required JSON body that is missing. */
export const missingBody = (example: unknown): AppError =>
  new AppError(
    415,
    'unsupported_media_type',
    `The request body must be JSON with Content-Type: application/json, e.g. ${typeof example === 'string' ? example : JSON.stringify(example)}`,
  );

/** The Express form of a public path under `mount`: /v1/locations/{locationId} → /locations/:locationId. */
export function expressPath(mount: string, path: string): string {
  if (!path.startsWith(mount)) throw new Error(`operation path ${path} is not under ${mount}`);
  return path.slice(mount.length).replace(/\{(\w+)\}/g, ':$1') || '/';
}

/** The route handler of an operation carries it, so tests can tell documented routes from others. */
export interface OperationHandler extends RequestHandler {
  operation: Operation;
}

export interface OperationRouter {
  /** Mounts `op` with its handler, after `before` (e.g. a session or admin check). */
  handle<P extends string, Q extends z.ZodType | undefined, B extends z.ZodType | undefined>(
    op: Operation<P, Q, B>,
    handler: Handler<P, Q, B>,
    ...before: RequestHandler[]
  ): void;
  /** The router, with a 405 (and Allow) for the other methods of every path it serves. */
  done(): Router;
}

/** A query as one request of an operation saw it: parsed, its X-Sandbox-Warning, and its checked value once asked for. */
interface CheckedQuery {
  query: Readonly<Record<string, unknown>>;
  warning: string | null;
  input: { value: unknown } | undefined;
}

/** The query text of a request URL (after "?"), "" when it has none. */
const queryTextOf = (url: string): string => {
  const at = url.indexOf('?');
  return at < 0 ? '' : url.slice(at + 1);
};

/**
 * The queries of one /v1 operation by their text, parsed and checked: the check is a function
 * of the text alone, and clients send the same query again and again (paging through history,
 * polling), so it is parsed, warned about and checked by zod once, not on every request (a
 * twentieth of a year of readings' CPU). What is kept is frozen, since requests share it. At
 * most MAX_CHECKED_QUERIES per operation: when full, it starts afresh.
 */
class CheckedQueries {
  readonly #byText = new Map<string, CheckedQuery>();

  get(text: string): CheckedQuery | undefined {
    return this.#byText.get(text);
  }

  set(text: string, checked: CheckedQuery): void {
    if (this.#byText.size >= MAX_CHECKED_QUERIES) this.#byText.clear();
    Object.freeze(checked.query);
    this.#byText.set(text, checked);
  }
}

const MAX_CHECKED_QUERIES = 64;

/** A router for operations mounted at `mount` ('/v1', '/sandbox' or '' for the authorization host). */
export function operationRouter(mount: string): OperationRouter {
  const router = Router({ strict: true });
  const methodsByPath = new Map<string, string[]>();
  const routes: TableRoute[] = [];
  return {
    handle(op, handler, ...before) {
      const base = expressPath(mount, op.path);
      const path = op.trailingSlash ? `${base}{/}` : base;
      const pattern = op.path.replace(/\{(\w+)\}/g, ':$1');
      // SANDBOX: production ignores query parameters it does not know; /v1 answers the same, and says which it ignored.
      const knownQuery = op.path.startsWith('/v1/') ? (op.query ? keyOrder(op.query) : []) : null;
      const checkedQueries = knownQuery === null ? null : new CheckedQueries();
      const run = Object.assign(
        (req: Request, res: Response): unknown => {
          setRouteLabel(res, pattern);
          const text = queryTextOf(req.url);
          let checked = checkedQueries?.get(text);
          if (checked === undefined) {
            const query = queryOf(req, res);
            checked = {
              query,
              warning: knownQuery === null ? null : unknownQueryWarning(Object.keys(query), knownQuery),
              input: undefined,
            };
            checkedQueries?.set(text, checked);
          } else {
            noteQuery(res, checked.query);
          }
          if (checked.warning !== null) res.setHeader(WARNING_HEADER, checked.warning);
          const known = checked;
          const input = {
            params: req.params as never,
            query: () => {
              if (!op.query) return undefined as never;
              // A query that fails its check is checked again each time: only a valid one is kept.
              known.input ??= { value: Object.freeze(parseInput(op.query, known.query, 'query')) };
              return known.input.value as never;
            },
            body: () => {
              const spec = op.body;
              if (!spec) return undefined as never;
              if (req.body === undefined && spec.required) throw missingBody(spec.example);
              return parseInput(spec.schema, req.body, 'body') as never;
            },
          };
          return handler(input, req, res);
        },
        { operation: op as unknown as Operation },
      ) satisfies OperationHandler;
      // The route's own checks (`before`) answer under its label too; without them, run sets it.
      const label: RequestHandler = (_req, res, next) => {
        setRouteLabel(res, pattern);
        next();
      };
      const noStore: RequestHandler = (_req, res, next) => {
        res.setHeader('Cache-Control', 'no-store');
        next();
      };
      const handlers = [
        ...(op.secrets === undefined ? [] : [noStore]),
        ...(before.length > 0 ? [label, ...before] : []),
        run,
      ];
      // What router[op.method](path, ...handlers) does, keeping Express's Route for the route table.
      const route = router.route(path);
      route[op.method](...handlers);
      routes.push({ method: op.method.toUpperCase(), path, handlers, route });
      methodsByPath.set(path, [...(methodsByPath.get(path) ?? []), op.method.toUpperCase()]);
    },
    done() {
      const order = ['GET', 'POST', 'PUT', 'DELETE'];
      for (const [path, methods] of methodsByPath)
        allowOnly(
          router,
          path,
          [...methods].sort((a, b) => order.indexOf(a) - order.indexOf(b)),
        );
      noteTableRoutes(router, routes);
      return router;
    },
  };
}
