/**
 * The one error model. Handlers throw an AppError (usually through the factories below);
 * http/error-handler.ts is the only place that turns errors into response bodies.
 * `code` is a stable snake_case string; `message` is a sentence safe to show to a client.
 */
export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    status: number,
    code: string,
    message: string,
    options: { details?: Record<string, unknown>; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.details = options.details;
    this.headers = options.headers;
  }

  /** Client errors are shown as they are; server errors are replaced by a generic message. */
  get expose(): boolean {
    return this.status < 500;
  }
}

/**
 * A 503 whose message is shown: the sandbox cannot serve now (its Redis is unreachable) and
 * says so, with Retry-After, instead of a generic 500.
 */
export class ServiceUnavailableError extends AppError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(503, 'service_unavailable', message, { headers: { 'Retry-After': '1' }, ...options });
  }

  override get expose(): boolean {
    return true;
  }
}

/**
 * A request refused by a limit (a rate, a cap on what an account holds, the body size): `limit`
 * is the setting that names it (ACCOUNT_CREATION_LIMIT, MAX_SUBSCRIPTIONS_PER_LOCATION, ...). The
 * central error handler counts it in /metrics and logs it at warn.
 */
export class LimitError extends AppError {
  constructor(
    status: 409 | 413 | 429 | 507,
    code: string,
    message: string,
    readonly limit: string,
    options: { details?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(status, code, message, options);
  }

  /** A limit's message is the sandbox's own words, a 507 of a full sandbox included. */
  override get expose(): boolean {
    return true;
  }
}

/** 409: a cap on what an account may hold is reached. The message names the cap's setting; `parameter`, the input asking for more. */
export const capReached = (limit: string, message: string, parameter?: string): LimitError =>
  new LimitError(409, 'limit_reached', message, limit, parameter === undefined ? {} : { details: { parameter } });

/** 429 with Retry-After: a rate is exceeded until its window ends. The message names the setting. */
export const rateLimited = (limit: string, message: string, retryAfterSeconds: number): LimitError =>
  new LimitError(429, 'rate_limited', message, limit, { headers: { 'Retry-After': String(retryAfterSeconds) } });

/** 507: the sandbox as a whole holds all it may (a total bound, not the caller's own). The message names the setting. */
export const storageFull = (limit: string, message: string): LimitError =>
  new LimitError(507, 'limit_reached', message, limit);

/** Whether background work failed only because the store is unreachable (already reported by the store, so not logged again). */
export const isServiceUnavailable = (error: unknown): boolean => error instanceof ServiceUnavailableError;

/** RFC 6749 section 5.2 errors of the token endpoint: `code` is the RFC error code. */
export class OAuthError extends AppError {}

/** A 400 about one named input; `parameter` is echoed in the body so a client can point at the field. */
export const invalidParameter = (parameter: string, message: string): AppError =>
  new AppError(400, 'invalid_parameter', message, { details: { parameter } });

export const badRequest = (code: string, message: string, details?: Record<string, unknown>): AppError =>
  new AppError(400, code, message, details === undefined ? {} : { details });

export const unauthorized = (message: string): AppError => new AppError(401, 'unauthorized', message);

export const forbidden = (message: string): AppError => new AppError(403, 'forbidden', message);

export const notFound = (message: string): AppError => new AppError(404, 'not_found', message);

export const conflict = (code: string, message: string): AppError => new AppError(409, code, message);

export const oauthError = (
  code:
    | 'invalid_request'
    | 'invalid_client'
    | 'invalid_grant'
    | 'unauthorized_client'
    | 'unsupported_grant_type'
    | 'invalid_scope',
  description: string,
  status = code === 'invalid_client' ? 401 : 400,
): OAuthError =>
  new OAuthError(
    status,
    code,
    description,
    code === 'invalid_client' ? { headers: { 'WWW-Authenticate': 'Basic realm="oauth2"' } } : {},
  );

/** 500: one of the sandbox's own invariants broke (a bug, never bad input); logged, its message not shown. */
export const internalError = (message: string): AppError => new AppError(500, 'internal_error', message);

/**
 * `value`, checked: for what the code knows is there but the type checker cannot follow (an
 * index inside bounds it has just checked, a group its pattern requires). An internalError
 * naming `what` when it is missing after all.
 */
export function present<T>(value: T, what: string): NonNullable<T> {
  if (value === undefined || value === null) throw internalError(`${what} is missing`);
  return value;
}
