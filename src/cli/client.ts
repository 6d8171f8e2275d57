import { CliError } from './context.js';

/** The demo account's key (README.md#demo-data): the default when neither --api-key nor WATER_API_KEY is given. */
export const DEMO_API_KEY = 'demo_api_key_for_the_water_monitoring_sandbox';
export const DEFAULT_SANDBOX_URL = 'http://localhost:8080';

export interface ClientOptions {
  sandbox?: string;
  apiKey?: string;
}

/** --sandbox, then SANDBOX_URL, then http://localhost:8080; --api-key, then WATER_API_KEY, then the demo key (`keyFrom` says which). */
export function resolveTarget(options: ClientOptions, env: Readonly<Record<string, string | undefined>>): { baseUrl: string; apiKey: string; keyFrom: '--api-key' | 'WATER_API_KEY' | 'demo' } {
  const given = options.sandbox ?? (env['SANDBOX_URL'] || DEFAULT_SANDBOX_URL);
  if (!URL.canParse(given) || !/^https?:$/.test(new URL(given).protocol)) {
    throw new CliError(`--sandbox (or SANDBOX_URL) must be an http or https URL such as ${DEFAULT_SANDBOX_URL}; got ${JSON.stringify(given)}`, 2);
  }
  const keyFrom = options.apiKey !== undefined ? '--api-key' : env['WATER_API_KEY'] ? 'WATER_API_KEY' : 'demo';
  return { baseUrl: given.replace(/\/+$/, ''), apiKey: options.apiKey ?? (env['WATER_API_KEY'] || DEMO_API_KEY), keyFrom };
}

export interface SandboxAnswer<T> {
  status: number;
  body: T;
}

/** JSON calls to a running sandbox with the account's key. A failure is a CliError with the sandbox's own `message`. */
export class SandboxClient {
  constructor(
    readonly baseUrl: string,
    private readonly credential: string,
  ) {}

  /** `path` starts with a slash; `accept` lists error statuses to return instead of throwing. */
  async call<T>(method: string, path: string, body?: unknown, options: { credential?: string | null; accept?: number[] } = {}): Promise<SandboxAnswer<T>> {
    const credential = options.credential === undefined ? this.credential : options.credential;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (credential !== null) headers['authorization'] = `Bearer ${credential}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    } catch (error) {
      throw unreachable(this.baseUrl, error);
    }
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      // not JSON: reported as text below
    }
    if (response.ok || options.accept?.includes(response.status)) return { status: response.status, body: parsed as T };
    throw sandboxError(method, path, response.status, parsed);
  }

  /** Opens a streaming GET (server-sent events); the caller reads the body. */
  async stream(path: string, signal: AbortSignal): Promise<Response> {
    try {
      return await fetch(`${this.baseUrl}${path}`, { headers: { accept: 'text/event-stream', authorization: `Bearer ${this.credential}` }, signal });
    } catch (error) {
      throw unreachable(this.baseUrl, error);
    }
  }
}

export function unreachable(baseUrl: string, error: unknown): CliError {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const why = cause?.code ?? cause?.message ?? (error as Error).message;
  return new CliError(`cannot reach the sandbox at ${baseUrl} (${why}); is it running? Point --sandbox or SANDBOX_URL at it`);
}

/** The sandbox's error as one line: its message, then the status and code. */
export function sandboxError(method: string, path: string, status: number, body: unknown): CliError {
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const message = typeof fields['message'] === 'string' ? fields['message'] : typeof fields['error_description'] === 'string' ? fields['error_description'] : typeof body === 'string' && body !== '' ? body : 'no body';
  const code = typeof fields['error'] === 'string' ? ` ${fields['error']}` : '';
  return new CliError(`${message} (${method} ${path}: ${status}${code})`);
}
