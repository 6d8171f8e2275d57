import { z } from 'zod';

import { invalidParameter } from '../core/errors.js';
import { parseInput, type Operation, type PathParams } from '../http/operation.js';

type Json = Record<string, unknown>;

/**
 * The arguments of a tool: the path parameters, query and body of the operation it calls,
 * flattened into one object (MCP tools take one object of arguments), plus fields of the tool's
 * own. Each part is checked by the schema the API checks it with, so a refusal is the API's
 * message naming the parameter.
 */
export interface ToolInputSpec<P extends string, Q extends Part, B extends Part, O extends Part> {
  /** The operation whose path parameters, query and body the tool takes. */
  operation?: Operation<P, Q, B>;
  /** What each path parameter is, as the tool's description of the argument. */
  params?: { readonly [K in keyof PathParams<P>]: string };
  /** Arguments of the tool's own, beside the operation's. */
  own?: O;
}

/** A part of a tool's arguments: the schema of an operation's query or body, or of the tool's own fields. */
export type Part = z.ZodType | undefined;

/** What a tool's handler gets: each part checked and parsed. */
export interface ToolArgs<P extends string, Q extends Part, B extends Part, O extends Part> {
  params: PathParams<P>;
  query: Q extends z.ZodType ? z.output<Q> : undefined;
  body: B extends z.ZodType ? z.output<B> : undefined;
  own: O extends z.ZodType ? z.output<O> : undefined;
}

/** The keys of the object a schema describes, from its JSON Schema (what a client is told it may send). */
const propertiesOf = (schema: Json): string[] => Object.keys(schema['properties'] ?? {});

/** JSON Schema of the text a client sends (io: input), as /openapi.json gives it, without $schema. */
function inputJsonSchema(schema: z.ZodType): Json {
  const { $schema: _schema, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
  return rest;
}

const pathNames = (path: string): string[] => [...path.matchAll(/\{(\w+)\}/g)].map(([, name = '']) => name);

/** A query value as the API receives it: text. A client may send a number or a boolean for it. */
const asQueryText = (value: unknown): unknown =>
  typeof value === 'number' || typeof value === 'boolean' ? String(value) : value;

/** Picks `keys` of `args` that are present. */
function pick(args: Json, keys: readonly string[]): Json {
  const picked: Json = {};
  for (const key of keys) if (args[key] !== undefined) picked[key] = args[key];
  return picked;
}

/**
 * A tool's input: its JSON Schema (for tools/list) and the parser of its arguments (for tools/call),
 * made once from the spec.
 */
export class ToolInput<P extends string, Q extends Part, B extends Part, O extends Part> {
  readonly jsonSchema: Json & { type: 'object' };
  readonly #pathKeys: string[];
  readonly #queryKeys: string[];
  readonly #bodyKeys: string[];
  readonly #ownKeys: string[];

  constructor(private readonly spec: ToolInputSpec<P, Q, B, O>) {
    const op = spec.operation as Operation | undefined;
    const descriptions = (spec.params ?? {}) as Readonly<Record<string, string>>;
    this.#pathKeys = op ? pathNames(op.path) : [];
    const parts: Json[] = [];
    parts.push({
      properties: Object.fromEntries(
        this.#pathKeys.map((name) => [name, { type: 'string', minLength: 1, description: descriptions[name] ?? name }]),
      ),
      required: this.#pathKeys,
    });
    const query = op?.query ? inputJsonSchema(op.query) : { properties: {} };
    const body = op?.body ? inputJsonSchema(op.body.schema) : { properties: {} };
    const own = spec.own ? inputJsonSchema(spec.own) : { properties: {} };
    this.#queryKeys = propertiesOf(query);
    this.#bodyKeys = propertiesOf(body);
    this.#ownKeys = propertiesOf(own);
    parts.push(query, body, own);
    const all = [...this.#pathKeys, ...this.#queryKeys, ...this.#bodyKeys, ...this.#ownKeys];
    if (new Set(all).size !== all.length)
      throw new Error(`tool input: an argument name is used twice (${all.join(', ')})`);
    const description = [op?.body && (body['description'] as string | undefined)].filter((d) => d !== undefined);
    this.jsonSchema = {
      type: 'object',
      properties: Object.assign({}, ...parts.map((p) => p['properties'] as Json)) as Json,
      required: parts.flatMap((p) => (p['required'] as string[] | undefined) ?? []),
      additionalProperties: false,
      ...(description.length > 0 ? { description: description.join(' ') } : {}),
    };
  }

  /** Every argument the tool takes. */
  get names(): string[] {
    return [...this.#pathKeys, ...this.#queryKeys, ...this.#bodyKeys, ...this.#ownKeys];
  }

  /** Checks the arguments part by part with the API's schemas: a 400 invalid_parameter naming the argument, or the parsed parts. */
  parse(given: unknown, toolName: string): ToolArgs<P, Q, B, O> {
    if (given !== undefined && (typeof given !== 'object' || given === null || Array.isArray(given)))
      throw invalidParameter('arguments', `The arguments of ${toolName} must be an object`);
    const args = (given ?? {}) as Json;
    const unknown = Object.keys(args).find((key) => !this.names.includes(key));
    if (unknown !== undefined) {
      const takes = this.names.length === 0 ? 'takes no arguments' : `takes ${this.names.join(', ')}`;
      throw invalidParameter(unknown, `Unknown argument ${JSON.stringify(unknown)}: ${toolName} ${takes}`);
    }
    const params: Record<string, string> = {};
    const descriptions = (this.spec.params ?? {}) as Readonly<Record<string, string | undefined>>;
    for (const name of this.#pathKeys) {
      const value = args[name];
      if (typeof value !== 'string' || value === '')
        throw invalidParameter(name, `${name} is required, as a string: ${descriptions[name] ?? name}`);
      params[name] = value;
    }
    const op = this.spec.operation as Operation | undefined;
    const queryArgs = Object.fromEntries(
      Object.entries(pick(args, this.#queryKeys)).map(([k, v]) => [k, asQueryText(v)]),
    );
    return {
      params: params as PathParams<P>,
      query: (op?.query ? parseInput(op.query, queryArgs, 'query') : undefined) as ToolArgs<P, Q, B, O>['query'],
      body: (op?.body ? parseInput(op.body.schema, pick(args, this.#bodyKeys), 'body') : undefined) as ToolArgs<
        P,
        Q,
        B,
        O
      >['body'],
      own: (this.spec.own ? parseInput(this.spec.own, pick(args, this.#ownKeys), 'body') : undefined) as ToolArgs<
        P,
        Q,
        B,
        O
      >['own'],
    };
  }
}
