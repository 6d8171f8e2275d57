/**
 * JSON calls to a running sandbox over the global fetch (no dependency), shared by the client
 * library and the CLI. A failure is a SandboxError carrying the sandbox's own message.
 */

/** A call the sandbox refused (status and code set), or one that never reached it (status null). */
export class SandboxError extends Error {
  constructor(
    message: string,
    /** The HTTP status; null when the sandbox could not be reached. */
    readonly status: number | null,
    /** The sandbox's error code (`invalid_parameter`, `not_found`, ...), when it sent one. */
    readonly code: string | null,
    /** The answer's body (parsed JSON, or text). */
    readonly body: unknown,
    /** The sandbox's own message (or the network error), without the request line. */
    readonly reason: string,
  ) {
    super(message);
    this.name = 'SandboxError';
  }
}

export interface SandboxAnswer<T> {
  status: number;
  body: T;
}

export interface CallOptions {
  /** The Bearer credential of this call instead of the client's; null for none. */
  credential?: string | null;
  /** Error statuses to answer instead of throwing. */
  accept?: number[];
  /** More request headers (a relay's key). */
  headers?: Readonly<Record<string, string>>;
}

/** Why a fetch failed, in a word: the network code (ECONNREFUSED) or the message. */
export function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

/** The sandbox's error as one line: its message, then the request, the status and the code. */
export function sandboxError(method: string, path: string, status: number, body: unknown): SandboxError {
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const message =
    typeof fields['message'] === 'string'
      ? fields['message']
      : typeof fields['error_description'] === 'string'
        ? fields['error_description']
        : typeof body === 'string' && body !== ''
          ? body
          : 'no body';
  const code = typeof fields['error'] === 'string' ? fields['error'] : null;
  return new SandboxError(
    `${message} (${method} ${path}: ${status}${code === null ? '' : ` ${code}`})`,
    status,
    code,
    body,
    message,
  );
}

export function unreachableError(baseUrl: string, error: unknown): SandboxError {
  const why = networkReason(error);
  return new SandboxError(`cannot reach the sandbox at ${baseUrl} (${why})`, null, null, null, why);
}

/** A sandbox's base URL (http or https, no trailing slash), or an error naming what was given. */
export function sandboxBaseUrl(given: string): string {
  if (!URL.canParse(given) || !/^https?:$/.test(new URL(given).protocol))
    throw new TypeError(
      `the sandbox URL must be an http or https URL such as http://localhost:8080; got ${JSON.stringify(given)}`,
    );
  return given.replace(/\/+$/, '');
}

/** JSON calls to one sandbox with one credential. */
export class SandboxHttp {
  constructor(
    readonly baseUrl: string,
    private readonly credential: string | null,
  ) {}

  /** `path` starts with a slash. */
  async call<T>(method: string, path: string, body?: unknown, options: CallOptions = {}): Promise<SandboxAnswer<T>> {
    const credential = options.credential === undefined ? this.credential : options.credential;
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    if (credential !== null) headers['authorization'] = `Bearer ${credential}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw unreachableError(this.baseUrl, error);
    }
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      // not JSON: kept as text
    }
    if (response.ok || options.accept?.includes(response.status)) return { status: response.status, body: parsed as T };
    throw sandboxError(method, path, response.status, parsed);
  }

  /** Opens a streaming GET (server-sent events); the caller reads the body. */
  async stream(
    path: string,
    signal: AbortSignal,
    extraHeaders: Readonly<Record<string, string>> = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { accept: 'text/event-stream', ...extraHeaders };
    if (this.credential !== null) headers['authorization'] = `Bearer ${this.credential}`;
    try {
      return await fetch(`${this.baseUrl}${path}`, { headers, signal });
    } catch (error) {
      throw unreachableError(this.baseUrl, error);
    }
  }
}
