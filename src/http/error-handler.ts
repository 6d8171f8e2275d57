import type { ErrorRequestHandler, RequestHandler } from 'express';

import { AppError, LimitError, OAuthError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { fromBodyParsing } from './json-body.js';
import { fromParameterDecoding } from './percent-encoding.js';
import { maybeAuthOf } from './request-context.js';

/** The endpoints whose errors are RFC 6749 bodies (RFC 7009 section 2.2.1 for revocation). */
const OAUTH_ENDPOINTS: ReadonlySet<string> = new Set(['/oauth2/token', '/oauth2/revoke']);

/**
 * The only place error bodies are shaped. /v1 and /sandbox: {error, message, ...details}; the
 * token and revocation endpoints: RFC 6749 {error, error_description}. A request refused by a limit (a LimitError,
 * or a body over the size limit) is told to `onLimited` (the /metrics counter) and logged at warn.
 */
export function errorHandler(
  logger: Logger,
  onLimited: (limit: string) => void = () => undefined,
): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const appError = error instanceof AppError ? error : (fromBodyParsing(error) ?? fromParameterDecoding(error));
    const limit = appError instanceof LimitError ? appError.limit : appError?.status === 413 ? 'BODY_LIMIT' : null;
    if (limit !== null) {
      onLimited(limit);
      logger.warn('request refused by a limit', {
        limit,
        status: appError?.status,
        method: req.method,
        path: req.path,
        accountId: maybeAuthOf(res)?.accountId,
        address: req.ip,
      });
    }
    if (res.headersSent) {
      logger.error('error after the response started', { path: req.path, err: error });
      res.end();
      return;
    }
    if (!appError) {
      logger.error('unexpected error', { method: req.method, path: req.path, err: error });
      res
        .status(500)
        .json({ error: 'internal_error', message: 'The sandbox hit an unexpected error; it has been logged.' });
      return;
    }
    for (const [name, value] of Object.entries(appError.headers ?? {})) res.setHeader(name, value);
    // The token and revocation endpoints answer in RFC 6749 form whatever went wrong, body-parser errors included.
    if (appError instanceof OAuthError || (OAUTH_ENDPOINTS.has(req.path.toLowerCase()) && appError.expose)) {
      res.setHeader('Cache-Control', 'no-store');
      const code = appError instanceof OAuthError ? appError.code : 'invalid_request';
      res.status(appError.status).json({ error: code, error_description: appError.message });
      return;
    }
    if (!appError.expose) logger.error('server error', { method: req.method, path: req.path, err: appError });
    res.status(appError.status).json(errorBody(appError));
  };
}

/** The body of an error of /v1 and /sandbox (and of an MCP tool's refusal): `{error, message, ...details}`; a server error's message is not shown. */
export function errorBody(appError: AppError): { error: string; message: string } & Record<string, unknown> {
  const message = appError.expose ? appError.message : 'The sandbox hit an unexpected error; it has been logged.';
  return { error: appError.code, message, ...(appError.details ?? {}) };
}

export const notFoundHandler: RequestHandler = (req) => {
  throw new AppError(
    404,
    'not_found',
    `No route ${req.method} ${req.path}; see docs/api.md (or /docs) for the routes this sandbox serves`,
  );
};
